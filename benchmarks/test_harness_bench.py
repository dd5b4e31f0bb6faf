"""One protocol round trip of the harness, with other Python threads busy (builds), on any
machine: the host-only harness build, a small case, one call per round trip.

On the H100 a candidate's timed calls cost about 150 ms each beyond their own time while
builds ran in the same process (benchmarks/results/gpu-h100-verify-throughput.json, the run
logs); each answer waited for the interpreter lock. This measures the round trip idle, with
four busy threads, and with them under :func:`~regrapht_core.verify.driver.responsive`, and
writes ``benchmarks/results/cpu-harness-round-trip.json``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import pytest

from regrapht_core.bench.runner import current_commit
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.verify.cases import build_case, stage_case, window_bytes
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.driver import Harness, responsive
from regrapht_core.verify.harness import HarnessKind, harness_source
from regrapht_core.verify.sandbox import Limits, Session
from tests.core.verify.tasks_fixture import SAXPY

RESULTS = Path(__file__).parent / "results"
CALLS = 200
BUSY_THREADS = 4
CASE = build_case(SAXPY, {"n": 1000}, 3, generate_inputs)

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("round-trip")
    compiler = Compiler(root / "objects", "sm_90")
    harness = compiler.host_object(harness_source(SAXPY, HarnessKind.REFERENCE))
    unit = compiler.host_object(SAXPY.source)
    assert harness.path is not None and unit.path is not None
    assert compiler.link([harness.path, unit.path], root / "bin", cuda=False).ok
    stage_case(root, "case", CASE.arrays)
    return root


def _per_call_ms(root: Path, scope: Callable[[], AbstractContextManager[None]]) -> float:
    limits = Limits(wall_s=120.0, drop_privileges=False, isolate_network=False)
    session = Session(
        ["./bin", "serve"], root, limits, {}, window_bytes=window_bytes(SAXPY, [CASE])
    )
    try:
        harness = Harness(session, SAXPY)
        harness.load("case")
        with scope():
            start = time.perf_counter()
            for _ in range(CALLS):
                harness.use(())
                harness.call(flush=False)
            elapsed = time.perf_counter() - start
        harness.quit()
    finally:
        session.close()
    return 1e3 * elapsed / CALLS


@pytest.fixture
def busy() -> Iterator[None]:
    stop = threading.Event()

    def burn() -> None:
        total = 0
        while not stop.is_set():
            total += sum(i * i for i in range(10_000))

    threads = [threading.Thread(target=burn, daemon=True) for _ in range(BUSY_THREADS)]
    for thread in threads:
        thread.start()
    yield
    stop.set()
    for thread in threads:
        thread.join()


def test_round_trip_with_busy_threads(run_dir: Path, busy: None) -> None:
    contended = statistics.median(_per_call_ms(run_dir, nullcontext) for _ in range(3))
    handed_over = statistics.median(_per_call_ms(run_dir, responsive) for _ in range(3))
    record = {
        "benchmark": "harness protocol round trip (host build, one call per round trip)",
        "device": f"{platform.node()} ({os.cpu_count()} CPUs), no GPU involved",
        "commit": current_commit(),
        "command": "python -m pytest benchmarks/test_harness_bench.py",
        "calls": CALLS,
        "busy_threads": BUSY_THREADS,
        "ms_per_round_trip_busy": round(contended, 3),
        "ms_per_round_trip_busy_responsive": round(handed_over, 3),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cpu-harness-round-trip.json").write_text(json.dumps(record, indent=2) + "\n")
    assert handed_over < contended / 4, record
