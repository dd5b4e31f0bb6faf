"""Loops whose rows are disjoint only for some inputs run on the GPU for those inputs and as
written otherwise: a copy into rows of ``pitch`` elements owns its rows when
``0 <= cols <= pitch``, which the analysis cannot prove but the host can check."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.dependence import analyse_loop
from regrapht_core.cxx.entry import entry_function
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.symbols import file_symbols
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.rows import RowReduction
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    refusal_of,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus"
PITCHED = unvalidated_task(
    (CORPUS / "transpose_layout/transpose_layout_pitch_pack_f32_ptr.cpp")
    .read_text()
    .replace("rows = 8192; cols = 8000", "rows = 37; cols = 100"),
    "copy_to_pitched",
)

# Rows of `pitch` elements that overlap (pitch < cols): the guard fails and the loop as
# written must run, later rows overwriting earlier ones.
OVERLAPPING = unvalidated_task(
    """
// regrapht: rows = 9; cols = 40; pitch = 24
// regrapht: src[rows*cols] in ~ uniform(-1, 1); dst[rows*pitch + cols] inout
void copy_rows(int rows, int cols, int pitch, const float* src, float* dst) {
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            dst[i * pitch + j] = src[i * cols + j] + 1.0f;
        }
        for (int j = cols; j < pitch; ++j) {
            dst[i * pitch + j] = 0.0f;
        }
    }
}
""",
    "copy_rows",
)


def _guards(body: str, signature: str = "void f(int n, int m, int k, float* y)") -> list[str]:
    root = parse(f"{signature} {{\n{body}\n}}\n").root_node
    task = unvalidated_task(f"// regrapht: n = 4; m = 4; k = 4; y[64] inout\n{signature} {{}}", "f")
    return analyse_loop(entry_function(root, task), file_symbols(root)).guards


def test_a_row_copy_into_pitched_rows_assumes_the_row_fits() -> None:
    guards = _guards(
        "  for (int i = 0; i < n; ++i) {\n"
        "    for (int j = 0; j < m; ++j) y[i * k + j] = 1.0f;\n"
        "    for (int j = m; j < k; ++j) y[i * k + j] = 0.0f;\n"
        "  }"
    )
    assert guards == [
        "static_cast<long long>(m) <= static_cast<long long>(k)",
        "0 <= static_cast<long long>(m)",
    ]


def test_a_proven_row_needs_no_guard() -> None:
    assert (
        _guards("  for (int i = 0; i < n; ++i) for (int j = 1; j < k - 1; ++j) y[i*k+j] = 0;") == []
    )


def test_an_inner_bound_the_outer_loop_moves_cannot_be_checked_before_it() -> None:
    with pytest.raises(Refusal, match="stays inside the row"):
        _guards("  for (int i = 0; i < n; ++i) for (int j = i; j < m; ++j) y[i * k + j] = 0;")


def test_the_pitched_copy_runs_on_the_gpu_only_when_its_rows_fit() -> None:
    code, message = first_step(PITCHED)
    assert code is not None, message
    guard = (
        "if ((static_cast<long long>(cols) <= static_cast<long long>(pitch)) && "
        "(0 <= static_cast<long long>(cols))) {"
    )
    assert guard in code
    host = code[code.index("} else {") :]
    assert "for (int i = 0; i < rows; ++i) {" in host
    assert "<<<" not in host
    assert "copy_to_pitched_rows<<<" in code  # a block per row


def test_a_row_of_several_loops_that_reduce_nothing_is_shared_by_a_block() -> None:
    (by_block, _) = RowReduction().apply(PITCHED.source, RewriteContext(PITCHED))
    assert "for (int j = static_cast<int>(threadIdx.x); j < cols; j += " in by_block.code
    assert "__syncthreads();" in by_block.code
    assert "lane" not in by_block.code  # no combine, so no lanes or warps


def test_a_perfect_nest_that_reduces_nothing_is_left_to_parallelization() -> None:
    task = unvalidated_task(
        "// regrapht: n = 8; m = 8; x[n*m] in; y[n*m] out\n"
        "void f(int n, int m, const float* x, float* y) {\n"
        "  for (int i = 0; i < n; ++i)\n"
        "    for (int j = 0; j < m; ++j) y[i * m + j] = 2.0f * x[i * m + j];\n}\n",
        "f",
    )
    assert "perfect nest" in refusal_of(RowReduction(), task, task.source)


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("task", [PITCHED, OVERLAPPING], ids=["pitched", "overlapping"])
def test_each_version_computes_what_the_loop_computes(task: Task, tmp_path: Path) -> None:
    code, message = first_step(task)
    assert code is not None, message
    all_pass(task, [code], tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", [PITCHED, OVERLAPPING], ids=["pitched", "overlapping"])
def test_each_version_agrees_with_the_loop_on_the_gpu(task: Task, tmp_path: Path) -> None:
    code, message = first_step(task)
    assert code is not None, message
    all_pass(task, [code], tmp_path, run=run_on_gpu)
