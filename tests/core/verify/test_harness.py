"""The harness's protocol and checks, run for real through its host-only build: a plain C++
"candidate" linked with the reference harness, driven over pipes like a real candidate
(loading, variants, poisoning, guard bytes, input checks, outputs read as they are written)."""

from __future__ import annotations

import mmap
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from regrapht_core.contracts.task import ParamKind, Role, Task
from regrapht_core.tasks.extract import extract_task
from regrapht_core.verify.cases import (
    Case,
    outputs_from_window,
)
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.driver import HarnessStopped
from regrapht_core.verify.protocol import EXIT_OUT_OF_BOUNDS, EXIT_PROTOCOL
from regrapht_core.verify.variants import draw_variant
from tests.core.verify.host_harness import HostRun
from tests.core.verify.tasks_fixture import COPY_INT, MATMUL, SAXPY, SUM, VECTOR_INT

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


@pytest.fixture(scope="module")
def compiler(tmp_path_factory: pytest.TempPathFactory) -> Compiler:
    return Compiler(tmp_path_factory.mktemp("objects"), "sm_90")


@pytest.fixture
def run(compiler: Compiler, tmp_path: Path) -> Iterator[object]:
    runs: list[HostRun] = []

    def start(task: Task, source: str) -> HostRun:
        runs.append(HostRun(compiler, task, source, tmp_path / f"run{len(runs)}"))
        return runs[-1]

    yield start
    for started in runs:
        started.close()


def _saxpy(case: Case) -> np.ndarray:
    x, y = case.arrays[2], case.arrays[3]
    return (np.float32(2.5) * x + y).astype(np.float32)


def test_outputs_come_back_per_call_and_inputs_stay_checked(run) -> None:  # type: ignore[no-untyped-def]
    started = run(SAXPY, SAXPY.source)
    assert not started.harness.locked  # the host-only build never locks itself down
    for k, case in enumerate(started.cases):
        started.harness.load(f"case{k}")
        started.harness.call(flush=False)
        dumped = started.harness.dump()
        assert dumped.modified is None
        assert first_mismatch("y", _saxpy(case), dumped.outputs["y"], SAXPY.tolerance) is None
    started.harness.quit()
    assert started.close().returncode == 0


def test_a_variant_changes_the_inputs_of_the_calls_that_use_it(run) -> None:  # type: ignore[no-untyped-def]
    started = run(SAXPY, SAXPY.source)
    case = started.cases[-1]
    variant = draw_variant(SAXPY, case.arrays, np.random.default_rng(3))
    assert variant, "saxpy's inputs are plain draws: a variant changes some of them"
    changed = [a.copy() for a in case.arrays]
    for change in variant:
        changed[change.arg][change.positions] = change.values
    started.harness.load(f"case{len(started.cases) - 1}")
    started.harness.use(variant)
    started.harness.call(flush=True)
    dumped = started.harness.dump()
    assert dumped.modified is None  # y is in-place: written by design, not "modified"
    got = dumped.outputs["y"]
    want = _saxpy(Case(case.binding, tuple(changed)))
    assert first_mismatch("y", want, got, SAXPY.tolerance) is None
    assert first_mismatch("y", _saxpy(case), got, SAXPY.tolerance) is not None
    started.harness.use(())  # the changes were undone: the base inputs again
    started.harness.call(flush=False)
    again = started.harness.dump().outputs["y"]
    assert first_mismatch("y", _saxpy(case), again, SAXPY.tolerance) is None


def test_unwritten_outputs_stay_poisoned(run) -> None:  # type: ignore[no-untyped-def]
    started = run(MATMUL, "void matmul(int n, const float* A, const float* B, float* C) {}\n")
    started.harness.load("case1")
    started.harness.call(flush=False)
    got = started.harness.dump().outputs["C"]
    assert np.isnan(got).all()


def test_writing_past_an_output_is_caught_by_guard_bytes(run) -> None:  # type: ignore[no-untyped-def]
    spill = "void saxpy(int n, float a, const float* x, float* y) { y[n] = 1.0f; }\n"
    started = run(SAXPY, spill)
    started.harness.load("case0")
    with pytest.raises(HarnessStopped):
        started.harness.call(flush=False)
    outcome = started.close()
    assert outcome.returncode == EXIT_OUT_OF_BOUNDS
    assert "'y'" in outcome.stderr


def test_a_modified_input_is_named(run) -> None:  # type: ignore[no-untyped-def]
    sneaky = (
        "void saxpy(int n, float a, const float* x, float* y) {\n"
        "  for (int i = 0; i < n; ++i) { y[i] = a * x[i] + y[i]; ((float*)x)[i] = 0; }\n}\n"
    )
    started = run(SAXPY, sneaky)
    started.harness.load(f"case{len(started.cases) - 1}")
    started.harness.call(flush=False)
    assert started.harness.dump().modified == "x"


SPAN_AXPY = """#include <span>
void axpy(float a, std::span<const float> x, std::span<float> y) {
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + y[i];
}
"""


def test_a_span_is_a_guarded_view_of_the_callers_elements(run) -> None:  # type: ignore[no-untyped-def]
    """Spans travel as views of the harness's guarded buffers: outputs come back, and a
    write one past the view's end is caught as with a pointer."""
    task = extract_task(SPAN_AXPY, "cpp", function="axpy", validate=False)
    assert [(a.kind, a.role) for a in task.args[1:]] == [
        (ParamKind.SPAN, Role.IN),
        (ParamKind.SPAN, Role.INOUT),
    ]
    started = run(task, SPAN_AXPY)
    for k, case in enumerate(started.cases):
        started.harness.load(f"case{k}")
        started.harness.call(flush=False)
        x, y = case.arrays[1], case.arrays[2]
        want = (np.float32(case.arrays[0]) * x + y).astype(np.float32)
        got = started.harness.dump().outputs["y"]
        assert first_mismatch("y", want, got, task.tolerance) is None
    spill = SPAN_AXPY.replace("y[i] = a * x[i] + y[i];", "y.data()[y.size()] = 1.0f;")
    spilled = run(task, spill)
    spilled.harness.load("case0")
    with pytest.raises(HarnessStopped):
        spilled.harness.call(flush=False)
    outcome = spilled.close()
    assert outcome.returncode == EXIT_OUT_OF_BOUNDS and "'y'" in outcome.stderr


@pytest.mark.parametrize("task", [SUM, VECTOR_INT], ids=lambda t: t.name)
def test_return_values_and_vectors_are_written(run, task: Task) -> None:  # type: ignore[no-untyped-def]
    started = run(task, task.source)
    started.harness.load("case0")
    started.harness.call(flush=False)
    assert started.harness.dump().outputs["return"].size == 1


def test_a_command_outside_the_protocol_ends_the_process(run) -> None:  # type: ignore[no-untyped-def]
    started = run(SAXPY, SAXPY.source)
    assert started.session.ask("call-everything") is None
    assert started.close().returncode == EXIT_PROTOCOL


def test_a_vector_output_grown_past_the_tasks_size_stops_the_harness(run) -> None:  # type: ignore[no-untyped-def]
    grower = (
        "#include <vector>\n"
        "long long histogram(const std::vector<int>& v, std::vector<int>& bins, unsigned k) {\n"
        "  bins.assign(bins.size() * 64 + 4096, 1);\n  return 0;\n}\n"
    )
    started = run(VECTOR_INT, grower)
    started.harness.load("case0")
    started.harness.call(flush=False)
    with pytest.raises(HarnessStopped):
        started.harness.dump()
    outcome = started.close()
    assert "larger than the task's" in outcome.stderr


def test_each_session_gets_a_window_of_its_own(run) -> None:  # type: ignore[no-untyped-def]
    first = run(SAXPY, SAXPY.source)
    first.harness.load(f"case{len(first.cases) - 1}")
    first.harness.call(flush=False)
    assert first.harness.dump().outputs["y"].any()
    second = run(SAXPY, SAXPY.source)
    assert not any(second.session.window[:]), "a new window starts zeroed, not with outputs"


@pytest.mark.parametrize(
    "sizes",
    [[], ["4", "4"], ["6"], ["-4"], ["x"], [str(1 << 40)]],
    ids=["none", "extra", "ragged", "negative", "text", "past the window"],
)
def test_byte_counts_that_do_not_describe_the_outputs_are_refused(sizes: list[str]) -> None:
    with mmap.mmap(-1, 4096) as window:
        assert outputs_from_window(SUM, window, sizes) is None


def test_outputs_are_copied_out_of_the_window() -> None:
    """Each output starts at a 64-byte boundary; what the verifier got stays as it was when
    the candidate writes the window again."""
    with mmap.mmap(-1, 4096) as window:
        window[0:8] = np.array([1.5, 2.5], np.float32).tobytes()
        got = outputs_from_window(SAXPY, window, ["8"])
        assert got is not None
        window[0:8] = bytes(8)
        assert got["y"].tolist() == [1.5, 2.5]


def test_unwritten_integer_outputs_are_poisoned_word_by_word(run) -> None:  # type: ignore[no-untyped-def]
    started = run(COPY_INT, "void stamp(int n, const int* x, int* y) {}\n")
    started.harness.load(f"case{len(started.cases) - 1}")
    started.harness.call(flush=False)
    got = started.harness.dump().outputs["y"]
    assert got.size > 1 and (got.view(np.uint32) == 0xDEADBEEF).all()
