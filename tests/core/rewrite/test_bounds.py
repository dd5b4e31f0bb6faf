"""Loop bounds read from a read-only array (``p < row_ptr[n]``) are read once, before the
loop, so the loop can be mapped: the in-degree count of a CSR graph had stayed on the host,
and its one verified answer was no faster than the reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import ArgSpec, ParamKind, Role, Task
from regrapht_core.rewrite.bounds import hoisted_bounds
from tests.core.rewrite.cases import make_task
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus"
DEGREES = small_corpus_task(
    CORPUS / "graph_steps/graph_steps_degrees_i32_ptr.cpp", "degrees", "1<<20", "3000"
)

_ARGS = (
    ArgSpec("ends", ParamKind.POINTER, "int", length="n + 1"),
    ArgSpec("x", ParamKind.POINTER, "float", length="n"),
    ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
)


def _task(body: str, ends: str = "const int* ends") -> Task:
    signature = f"void f({ends}, const float* x, float* y, int n)"
    return make_task("f", f"{signature} {{\n{body}\n}}\n", signature, _ARGS)


def _hoisted(body: str, ends: str = "const int* ends") -> str:
    task = _task(body, ends)
    return hoisted_bounds(task.source, task)


def test_a_read_only_arrays_element_in_the_bounds_is_read_once_before_the_loop() -> None:
    code = _hoisted("  for (int i = ends[0]; i < ends[n]; ++i) y[i] = 2.0f * x[i];")
    assert "  const int ends_bound = ends[0];\n  const int ends_bound2 = ends[n];\n" in code
    assert "for (int i = ends_bound; i < ends_bound2; ++i) y[i] = 2.0f * x[i];" in code


@pytest.mark.parametrize(
    ("body", "ends"),
    [
        # the loop variable in the index: a different element each time
        ("  for (int i = 0; i < ends[i]; ++i) y[i] = x[i];", "const int* ends"),
        # the index changes in the loop
        ("  for (int i = 0; i < ends[n]; ++i) { y[i] = x[i]; n--; }", "const int* ends"),
        # passed to a call that may take it by reference
        ("  for (int i = 0; i < ends[n]; ++i) { y[i] = x[i]; g(n); }", "const int* ends"),
        # a call in the index
        ("  for (int i = 0; i < ends[h(n)]; ++i) y[i] = x[i];", "const int* ends"),
        # the function may write the array
        ("  for (int i = 0; i < ends[n]; ++i) y[i] = x[i];", "int* ends"),
    ],
    ids=["loop variable", "changed index", "index passed to a call", "call", "writable array"],
)
def test_a_bound_that_may_change_stays_as_written(body: str, ends: str) -> None:
    task = _task(body, ends)
    assert hoisted_bounds(task.source, task) == task.source


def test_the_in_degree_loop_now_moves_to_the_device_with_atomics() -> None:
    code, message = first_step(DEGREES)
    assert code is not None, message
    assert "const int row_ptr_bound = row_ptr[n];" in code
    assert "loop 2 stays on the host" not in message
    assert "atomicAdd(&in_deg" in code


@pytest.mark.slow
@requires_nvcc
def test_the_degrees_candidate_computes_what_the_reference_computes(tmp_path: Path) -> None:
    code, message = first_step(DEGREES)
    assert code is not None, message
    all_pass(DEGREES, [code], tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_degrees_candidate_agrees_with_the_reference_on_the_gpu(tmp_path: Path) -> None:
    code, message = first_step(DEGREES)
    assert code is not None, message
    all_pass(DEGREES, [code], tmp_path, run=run_on_gpu)
