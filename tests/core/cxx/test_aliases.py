"""A row pointer (``const float* row = x + r * cols;``) is written as the subscripts it
stands for (``x[(r * cols) + (c)]``), so the analysis reads the matrix it walks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.cxx.aliases import inline_pointer_aliases
from tests.core.cxx.support import each_rewritten, printed_by, renamed, rewritten
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _source(body: str) -> str:
    return f"void f(const float* x, float* y, float m[16], int rows, int cols) {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "for (int r = 0; r < rows; ++r) { const float* row = x + r * cols; y[r] = row[1]; }",
            "for (int r = 0; r < rows; ++r) {  y[r] = x[(r * cols) + (1)]; }",
        ),
        (
            "for (int r = 0; r < rows; ++r) { float* out = &y[r * 2]; *out = 0; out[1] = *out; }",
            "for (int r = 0; r < rows; ++r) {  y[r * 2] = 0; y[(r * 2) + (1)] = y[r * 2]; }",
        ),
        (
            "for (int r = 0; r < 4; ++r) { float* q = 4 * r + m; q[0] = q[3]; }",
            "for (int r = 0; r < 4; ++r) {  m[(4 * r) + (0)] = m[(4 * r) + (3)]; }",
        ),
    ],
    ids=["row-of-an-input", "address-of-an-element", "offset-first-into-an-array"],
)
def test_a_row_pointer_is_written_as_subscripts(body: str, written: str) -> None:
    assert rewritten(_source(body), inline_pointer_aliases).splitlines()[1] == written


@pytest.mark.parametrize(
    "body",
    [
        "for (int r = 0; r < rows; ++r) { const float* row = x + r * cols; row++; y[r] = *row; }",
        "for (int r = 0; r < rows; ++r) { const float* row = x + r * cols; r += 0; y[0] = *row; }",
        "for (int r = 0; r < rows; ++r) { const float* row = x + r; y[r] = *(row + 1); }",
        "for (int r = 0; r < rows; ++r) { const float* row = x + r; g(row); }",
        "int k = 0;\nfor (int r = 0; r < rows; ++r) { const float* row = x + k++; y[r] = *row; }",
        "for (int r = 0; r < rows; ++r) { int row = r; y[row] = 0; }",
        "for (int r = 0; r < rows; ++r) { const float* row = x + r; y[r] = row[0]; }\n"
        "{ const float* row = x; y[0] = *row; }",
        "for (int r = 0; r < rows; ++r) { const float* row = x + r; y[r] = row[(int)*row]; }",
    ],
    ids=[
        "pointer-moved",
        "offset-changed",
        "pointer-arithmetic",
        "passed-on",
        "offset-with-an-effect",
        "not-a-pointer",
        "declared-twice",
        "a-use-inside-another",
    ],
)
def test_other_pointers_are_left_as_written(body: str) -> None:
    source = _source(body)
    assert rewritten(source, inline_pointer_aliases) == source


ROWS = (
    "#include <cstdio>\n"
    "void sums(const float* x, float* y, int rows, int cols) {\n"
    "  for (int r = 0; r < rows; ++r) { const float* row = x + r * cols; float s = 0;\n"
    "    for (int c = 0; c < cols; ++c) s += row[c] * (c + 1); y[r] = s; } }\n"
    "void scale(float* x, int rows, int cols) {\n"
    "  for (int r = 0; r < rows; ++r) { float* row = &x[r * cols];\n"
    "    for (int c = 0; c < cols; ++c) row[c] *= r + 1; *row += 1; } }\n"
)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_subscripts_compute_what_the_row_pointers_do(tmp_path: Path) -> None:
    names = ("sums", "scale")
    written = each_rewritten(ROWS, names, inline_pointer_aliases)
    assert "row" not in written.replace("rows", "")
    main = (
        "int main() { int bad = 0; float a[64], b[64], y[8], z[8];\n"
        "  for (int rows = 0; rows <= 8; ++rows) for (int cols = 0; cols <= 8; ++cols) {\n"
        "    for (int k = 0; k < 64; ++k) a[k] = b[k] = k % 7 - 3;\n"
        "    sums(a, y, rows, cols); x_sums(a, z, rows, cols);\n"
        "    for (int r = 0; r < rows; ++r) bad += y[r] != z[r];\n"
        "    scale(a, rows, cols); x_scale(b, rows, cols);\n"
        "    for (int k = 0; k < 64; ++k) bad += a[k] != b[k];\n"
        "  }\n"
        '  std::printf("%d\\n", bad); return bad != 0; }\n'
    )
    program = ROWS + renamed(written, names).split("\n", 1)[1] + main
    assert printed_by(program, tmp_path) == "0"


ROW_SUMS = """// regrapht: rows = 300; cols = 257; x[rows*cols] in; y[rows] out
void row_sums(const float* x, float* y, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const float* row = x + r * cols;
        float s = 0;
        for (int c = 0; c < cols; ++c) s += row[c];
        y[r] = s;
    }
}
"""


@requires_nvcc
def test_row_sums_through_a_row_pointer_get_a_kernel_that_computes_them(tmp_path: Path) -> None:
    """It was refused: "cannot infer the length of 'x' (aliased by the local pointer
    '* row')"."""
    assert "__global__" in first_step_computes(unvalidated_task(ROW_SUMS, "row_sums"), tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_row_sums_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    first_step_computes(unvalidated_task(ROW_SUMS, "row_sums"), tmp_path, run=run_on_gpu)
