"""Where a candidate's GPU run spends its time: the verifier, unchanged, with timers around
its own methods (opening the session, the harness's round trips, dumps, comparisons).

A profiler, not a benchmark with a target: it found that full-size "small" cases, files as
the outputs' channel and a byte-wise integer poison cost most of a run
(benchmarks/results/gpu-h100-verify-phases.json). Run on the GPU machine after
``source scripts/gpu-env.sh``::

    [ONLY=map_relu,map_fma3] [COMPARE=1] python3 benchmarks/verify_phases.py TASKS PER_TASK MODES

``MODES``: ``overlap`` (builds run alongside the GPU runs, as in a search) and/or ``first``
(every build done before the first run). One JSON line per candidate run on stdout and the
rows in ``$OUT/phases.json``; ``COMPARE=1`` first times a 64 MiB comparison and copy.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.verify_throughput import suite_jobs
from regrapht_core.contracts.deadline import NO_DEADLINE
from regrapht_core.contracts.task import Tolerance
from regrapht_core.verify import bank, checks, driver, pipeline, sandbox
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Built, Verifier
from regrapht_core.verify.pool import verify_many

_local = threading.local()


def _phases() -> defaultdict[str, Any]:
    if not hasattr(_local, "phases"):
        _local.phases = defaultdict(float)
    return _local.phases  # type: ignore[no-any-return]


def _timed(owner: object, name: str, label: str | None = None) -> None:
    """Replace ``owner.name`` by a wrapper adding its wall and thread CPU time to the run's."""
    original: Callable[..., Any] = getattr(owner, name)
    key = label or f"{getattr(owner, '__name__', owner)}.{name}"

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            phases = _phases()
            phases[key] += time.perf_counter() - wall
            phases[f"{key}.cpu"] += time.thread_time() - cpu
            phases[f"{key}.n"] += 1

    setattr(owner, name, wrapper)


def _instrument(rows: list[dict[str, Any]], mode: list[str]) -> None:
    for owner, name in [
        (Verifier, "_open"),
        (Verifier, "_task_build"),
        (Verifier, "_canary"),
        (Verifier, "_judge"),
        (driver.Harness, "flush"),
        (driver.Harness, "quit"),
        (sandbox.Session, "close"),
        (sandbox.Session, "ask"),
        (bank.TimingSet, "fresh"),
        (pipeline, "stage_case"),
    ]:
        _timed(owner, name)
    _timed(checks, "first_mismatch", "compare")
    _timed(checks, "_timed", "timed_phase")
    _timed(pipeline, "check_and_time", "check_and_time")

    call, dump, run = driver.Harness.call, driver.Harness.dump, Verifier.run

    def timed_call(self: driver.Harness, *, flush: bool) -> driver.CallSample:
        began = time.perf_counter()
        sample = call(self, flush=flush)
        wall = time.perf_counter() - began
        kind = "timed" if flush else "small"
        phases = _phases()
        phases[f"{kind}_calls"] += 1
        phases[f"{kind}_wall"] += wall
        phases[f"{kind}_host"] += sample.host_ms / 1e3
        _local.calls.append((kind, round(wall * 1e3, 2), round(sample.host_ms, 2)))
        return sample

    def timed_dump(self: driver.Harness) -> driver.Dumped:
        began = time.perf_counter()
        dumped = dump(self)
        big = sum(array.nbytes for array in dumped.outputs.values()) > (1 << 20)
        key = "dump_big" if big else "dump_small"
        phases = _phases()
        phases[key] += time.perf_counter() - began
        phases[f"{key}.n"] += 1
        return dumped

    def timed_run(self: Verifier, built: Built, **kwargs: Any) -> Any:
        _local.phases, _local.calls = defaultdict(float), []
        began = time.perf_counter()
        result = run(self, built, **kwargs)
        row: dict[str, Any] = {k: round(v, 4) for k, v in _local.phases.items()}
        row.update(run=round(time.perf_counter() - began, 4), task=built.task.name)
        row.update(status=str(result.status), mode=mode[0], calls=_local.calls)
        rows.append(row)
        sys.stdout.write(json.dumps(row) + "\n")
        return result

    driver.Harness.call = timed_call  # type: ignore[method-assign]
    driver.Harness.dump = timed_dump  # type: ignore[method-assign]
    Verifier.run = timed_run  # type: ignore[method-assign]


def _compare_bench() -> dict[str, list[float]]:
    """A 64 MiB float32 comparison: the verifier's, bitwise, a copy, and split on threads."""
    want = np.random.default_rng(0).random(1 << 24).astype(np.float32)
    got = want * np.float32(1.0000001)
    found: dict[str, list[float]] = defaultdict(list)

    def clock(name: str, work: Callable[[], object]) -> None:
        began = time.perf_counter()
        work()
        found[name].append(time.perf_counter() - began)

    for _ in range(3):
        clock("numpy", lambda: first_mismatch("x", want, got, Tolerance()))
        clock("copy64MB", want.copy)
        for threads in (2, 4, 8):
            step = want.size // threads

            def split(threads: int = threads, step: int = step) -> None:
                with ThreadPoolExecutor(threads) as pool:
                    spans = range(0, want.size, step)
                    for start in spans:
                        pool.submit(
                            first_mismatch,
                            "x",
                            want[start : start + step],
                            got[start : start + step],
                            Tolerance(),
                        )

            clock(f"threads{threads}", split)
    return dict(found)


def main(argv: list[str]) -> int:
    tasks, per_task, modes = int(argv[0]), int(argv[1]), argv[2].split(",")
    if os.environ.get("COMPARE"):
        sys.stdout.write(json.dumps({"compare_bench": _compare_bench()}) + "\n")
    only = [name for name in os.environ.get("ONLY", "").split(",") if name]
    groups = [g for g in suite_jobs(per_task=per_task) if not only or g[0].name in only]
    jobs = [(job.task, job.source) for group in groups[:tasks] for job in group]
    rows: list[dict[str, Any]] = []
    mode = [modes[0]]
    _instrument(rows, mode)
    for mode[0] in modes:
        with tempfile.TemporaryDirectory() as cache:
            verifier = Verifier(VerifyConfig(cache_dir=Path(cache)))
            began = time.perf_counter()
            if mode[0] == "overlap":
                verify_many(verifier, jobs)
            else:
                with ThreadPoolExecutor(max((os.cpu_count() or 1) - 2, 1)) as pool:
                    futures = [pool.submit(verifier.build, *job) for job in jobs]
                built = [future.result() for future in futures]
                for made in built:
                    if isinstance(made, Built):
                        verifier.run(made, deadline=NO_DEADLINE)
            wall = time.perf_counter() - began
            sys.stdout.write(json.dumps({"mode": mode[0], "wall": wall, "n": len(jobs)}) + "\n")
    Path(os.environ.get("OUT", "/tmp"), "phases.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(relativeCreated)8.0f %(name)s: %(message)s")
    sys.exit(main(sys.argv[1:]))
