"""CPU loop hints (``#pragma omp parallel for`` and the like) are blanked before a function
is read: the sequential program is the same without them, and the CUDA written from it may
not carry them (the gate allows only ``#pragma unroll``, ``nounroll`` and ``once``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.cxx.pragmas import drop_loop_hints
from regrapht_core.verify.gate import check
from tests.core.cxx.support import rewritten
from tests.core.rewrite.support import first_step_computes, requires_nvcc, unvalidated_task


def _body(pragma: str) -> str:
    return (
        "void f(float* y, const float* x, int n) {\n"
        f"    {pragma}\n"
        "    for (int i = 0; i < n; ++i) y[i] = 2 * x[i];\n"
        "}\n"
    )


@pytest.mark.parametrize(
    "pragma",
    [
        "#pragma omp parallel for",
        "#pragma omp parallel for simd schedule(static)",
        "#pragma omp simd",
        "#pragma acc parallel loop",
        "#pragma GCC ivdep",
        "#pragma GCC unroll 4",
        "#pragma clang loop vectorize(enable)",
        "#pragma ivdep",
        "#pragma vector always",
    ],
)
def test_a_cpu_loop_hint_is_blanked_on_its_line(pragma: str) -> None:
    assert rewritten(_body(pragma), drop_loop_hints).splitlines()[1].strip() == ""


def test_a_hint_continued_on_the_next_line_keeps_both_lines() -> None:
    source = _body("#pragma omp parallel for \\\n        schedule(static)")
    lines = rewritten(source, drop_loop_hints).splitlines()
    assert [lines[1].strip(), lines[2].strip()] == ["", ""]
    assert lines[3].strip().startswith("for (int i = 0")


@pytest.mark.parametrize(
    "pragma", ["#pragma unroll", "#pragma unroll 4", '#pragma GCC optimize("O3")']
)
def test_other_pragmas_are_kept(pragma: str) -> None:
    source = _body(pragma)
    assert rewritten(source, drop_loop_hints) == source


OPENMP = """#include <vector>
void saxpy_omp(float a, const std::vector<float>& x, std::vector<float>& y) {
    const int n = (int)x.size();
#pragma omp parallel for
    for (int i = 0; i < n; ++i) {
#pragma omp simd
        for (int k = 0; k < 1; ++k) y[i] = a * x[i] + y[i];
    }
}
"""


@requires_nvcc
def test_an_openmp_loop_gets_a_kernel_the_gate_passes_that_computes_it(tmp_path: Path) -> None:
    """Every candidate of an OpenMP loop failed the gate on the kept ``#pragma omp``."""
    task = unvalidated_task(OPENMP, "saxpy_omp")
    assert "#pragma" not in task.source
    code = first_step_computes(task, tmp_path)
    assert check(code, task).ok, check(code, task).feedback
