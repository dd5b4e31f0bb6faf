"""The adversarial corpus's honest candidates through one verifier session, and a comparison
of two such runs.

A verifier that rejects every cheat is worthless if it also mistimes honest code, so the
issue holds the new verifier's speedups on the honest controls to within ±10% of the old
one's. Run this once per verifier (``REGRAPHT_RESULT_TAG=before`` on the old one,
``after`` on the new) and compare the two files::

    REGRAPHT_RESULT_TAG=before python3 -m benchmarks.honest_controls
    python3 scripts/compare-honest.py benchmarks/results/gpu-h100-honest-controls-before.json \\
        benchmarks/results/gpu-h100-honest-controls-after.json
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.provenance import device_prefix, provenance, result_tag, write_result
from regrapht_core.contracts.evaluation import Evaluation, Timing
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier
from tests.data.candidates.corpus import Candidate, load_corpus

__all__ = [
    "TOLERANCE",
    "Comparison",
    "compare",
    "compare_files",
    "main",
    "report",
    "run_honest_controls",
]

TOLERANCE = 0.10
"""The issue's bound on how far an honest control's speedup may move between verifiers."""


def _timing(timing: Timing) -> dict[str, Any]:
    return {
        "mode": str(timing.mode),
        "speedup": round(timing.speedup, 4),
        "reference_ms": timing.reference_ms,
        "candidate_ms": timing.candidate_ms,
        "reference_spread_ms": timing.reference_spread_ms,
        "candidate_spread_ms": timing.candidate_spread_ms,
        "runs": timing.runs,
    }


def _row(candidate: Candidate, result: Evaluation, seconds: float) -> dict[str, Any]:
    primary = _timing(result.timing) if result.timing else {}
    return {
        "candidate": candidate.id,
        "summary": candidate.summary,
        "task_mode": str(candidate.task.mode),
        "expect": sorted(candidate.expect),
        "status": str(result.status),
        "as_expected": result.status in candidate.expect,
        "speedup": primary.get("speedup"),
        "mode": primary.get("mode"),
        "reference_ms": primary.get("reference_ms"),
        "candidate_ms": primary.get("candidate_ms"),
        "runs": primary.get("runs"),
        "timings": [_timing(t) for t in result.timings],
        "seconds": round(seconds, 2),
        "feedback": result.feedback[:300],
        "flags": list(result.flags),
    }


def run_honest_controls(
    command: str = "python3 -m benchmarks.honest_controls",
) -> dict[str, Any]:
    """Verify every honest candidate of the corpus in one session; the JSON result is
    rewritten after each candidate, so a run cut short still leaves its record."""
    honest = [c for c in load_corpus() if c.honest]
    with tempfile.TemporaryDirectory(prefix="regrapht-honest-") as cache:
        verifier = Verifier(VerifyConfig(cache_dir=Path(cache)))
        gpu = device_prefix(verifier.device.name if verifier.device else None)
        name = f"{gpu}-honest-controls{result_tag()}.json"
        record: dict[str, Any] = {
            "benchmark": "honest controls of the adversarial corpus (tests/data/candidates)",
            **provenance(verifier, command),
            "candidates": [],
        }
        for candidate in honest:
            start = time.perf_counter()
            result = verifier.verify(candidate.task, candidate.source)
            record["candidates"].append(_row(candidate, result, time.perf_counter() - start))
            record["complete"] = len(record["candidates"]) == len(honest)
            if verifier.device is not None:  # without a GPU nothing is timed
                write_result(name, record)
    return record


@dataclass(frozen=True, slots=True)
class Comparison:
    candidate: str
    before: tuple[str, float] | None
    """Timing mode and speedup in the first run; ``None``: missing or not verified."""
    after: tuple[str, float] | None

    @property
    def ratio(self) -> float | None:
        """After over before, where both verified and were timed in the same mode."""
        if self.before is None or self.after is None or self.before[0] != self.after[0]:
            return None
        return self.after[1] / self.before[1]

    @property
    def within(self) -> bool:
        """The speedup moved by at most :data:`TOLERANCE`."""
        return self.ratio is not None and abs(self.ratio - 1.0) <= TOLERANCE


def _speedups(record: dict[str, Any], mode: str | None) -> dict[str, tuple[str, float] | None]:
    """Each candidate's speedup in ``mode`` (its primary timing when ``None``)."""

    def speedup(row: dict[str, Any]) -> tuple[str, float] | None:
        if row["status"] != "verified":
            return None
        if mode is None:
            return row["mode"], row["speedup"]
        timed = [t["speedup"] for t in row["timings"] if t["mode"] == mode]
        return (mode, timed[0]) if timed else None

    return {row["candidate"]: speedup(row) for row in record["candidates"]}


def compare(
    before: dict[str, Any], after: dict[str, Any], mode: str | None = None
) -> list[Comparison]:
    """Every candidate of either run, with its speedup in ``mode`` (default: the primary
    mode) in each; a candidate not timed in ``mode`` in a run counts as missing there."""
    old, new = _speedups(before, mode), _speedups(after, mode)
    return [Comparison(c, old.get(c), new.get(c)) for c in sorted(old.keys() | new.keys())]


def compare_files(before: Path, after: Path, mode: str | None = None) -> list[Comparison]:
    return compare(
        json.loads(before.read_text(encoding="utf-8")),
        json.loads(after.read_text(encoding="utf-8")),
        mode,
    )


def report(rows: Sequence[Comparison]) -> str:
    """One line per candidate and a verdict line, for a terminal or a log."""

    def shown(value: tuple[str, float] | None) -> str:
        return "-" if value is None else f"{value[1]:.3f} {value[0]}"

    ratio = {r.candidate: "-" if r.ratio is None else f"{r.ratio:.3f}" for r in rows}
    lines = [f"{'candidate':40} {'before':>20} {'after':>20} {'ratio':>7}  within"]
    lines += [
        f"{r.candidate:40} {shown(r.before):>20} {shown(r.after):>20} {ratio[r.candidate]:>7}  "
        f"{'yes' if r.within else 'NO'}"
        for r in rows
    ]
    verdict = all(r.within for r in rows) and bool(rows)
    lines.append(f"all within ±{TOLERANCE:.0%}: {'yes' if verdict else 'NO'}")
    return "\n".join(lines)


def main() -> int:
    """Run the controls; exits 1 when an honest control is not verified."""
    record = run_honest_controls()
    for row in record["candidates"]:
        sys.stdout.write(f"{row['candidate']:45} {row['status']:15} {row['speedup']}\n")
    return 0 if all(row["as_expected"] for row in record["candidates"]) else 1


if __name__ == "__main__":
    sys.exit(main())
