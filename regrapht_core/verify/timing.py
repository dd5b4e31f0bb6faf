"""Turn the timing harness's per-call samples into labelled medians, and sanity-check them.

The harness writes one line per timed iteration: candidate host-clock time, candidate
event time, candidate kernel-only time (sum over its launches), reference time, launch
count. Medians and interquartile spread resist the odd preempted call; the event/host
cross-check catches a clock that does not measure what the other one does.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from regrapht_core.contracts.evaluation import Timing
from regrapht_core.contracts.task import TimingMode

__all__ = ["Samples", "clock_disagreement", "parse_samples", "summarize"]

_CLOCK_RTOL = 0.10
_CLOCK_ATOL_MS = 0.05


@dataclass(frozen=True, slots=True)
class Samples:
    candidate_host_ms: tuple[float, ...]
    candidate_event_ms: tuple[float, ...]
    candidate_kernel_ms: tuple[float, ...]
    reference_ms: tuple[float, ...]
    launches: tuple[int, ...]


def parse_samples(text: str) -> Samples | None:
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 5:
            return None
        try:
            rows.append((*(float(f) for f in fields[:4]), int(fields[4])))
        except ValueError:
            return None
    if not rows:
        return None
    host, event, kernel, reference, launches = zip(*rows, strict=True)
    return Samples(host, event, kernel, reference, tuple(int(n) for n in launches))


def _spread(values: tuple[float, ...]) -> float:
    if len(values) < 4:
        return max(values) - min(values)
    quartiles = statistics.quantiles(values, n=4)
    return quartiles[2] - quartiles[0]


def summarize(samples: Samples, mode: TimingMode) -> Timing | None:
    """The timing in ``mode``; ``None`` for kernel-only when some call launched nothing the
    harness could time (a candidate doing its work elsewhere must not look free)."""
    if mode is TimingMode.KERNEL_ONLY:
        if min(samples.launches) == 0:
            return None
        candidate = samples.candidate_kernel_ms
    else:
        candidate = samples.candidate_host_ms
    return Timing(
        mode=mode,
        reference_ms=statistics.median(samples.reference_ms),
        candidate_ms=statistics.median(candidate),
        reference_spread_ms=_spread(samples.reference_ms),
        candidate_spread_ms=_spread(candidate),
        runs=len(candidate),
    )


def clock_disagreement(samples: Samples) -> str | None:
    """Why the event timer and the host clock disagree on the end-to-end calls, if they do.

    Both bracket the same interval (the start event is recorded on an idle device, the stop
    event after a device-wide sync), so they must agree up to launch latency.
    """
    host = statistics.median(samples.candidate_host_ms)
    event = statistics.median(samples.candidate_event_ms)
    if abs(host - event) <= _CLOCK_RTOL * host + _CLOCK_ATOL_MS:
        return None
    return f"event timer says {event:.4f} ms but the host clock says {host:.4f} ms"
