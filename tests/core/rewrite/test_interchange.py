"""The i-k-j matrix product read as the i-j-k one the matmul rewriters tile: zeroed first,
the same sums; added to the output (``C += A * B``), the products summed from zero and added
once, as a ``beta = 1`` GEMM adds them. Run against the reference."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import LoopSelection, Task
from regrapht_core.rewrite.interchange import product_as_dot
from regrapht_core.rewrite.matmul import BlockedMatmul, TiledMatmul
from regrapht_core.rewrite.protocol import RefusingRewriter, RewriteContext
from tests.core.rewrite.support import (
    compile_cuda,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    unvalidated_task,
)

CXX = Path(__file__).parents[3] / "benchmarks" / "cxx"
IKJ = unvalidated_task((CXX / "dense_gemm_small.cpp").read_text(), "matmul")

HEADER = "// regrapht: M = 37; N = 29; K = 13\n"
SIGNATURE = "void mm(const double* A, const double* B, double* C, int M, int N, int K) {\n"


def _task(zero: str, nest: str) -> Task:
    return unvalidated_task(f"{HEADER}{SIGNATURE}{zero}\n{nest}\n}}\n", "mm")


ZERO = "  for (int t = 0; t < M * N; ++t) C[t] = 0.0;"
NEST = (
    "  for (int i = 0; i < M; ++i)\n"
    "    for (int k = 0; k < K; ++k)\n"
    "      for (int j = 0; j < N; ++j)\n"
    "        C[i * N + j] = C[i * N + j] + A[i * K + k] * B[k * N + j];"
)
PLAIN = _task(ZERO, NEST)
"""Doubles, no hoisted factor, the ``C = C + ...`` spelling, sizes no tile divides."""


def test_the_corpus_product_becomes_a_dot_product_per_output() -> None:
    code = product_as_dot(IKJ.source, IKJ)
    assert code is not None
    assert "C[i] = 0.0f" not in code
    assert "float acc = 0;" in code
    assert "acc += (A[i * K + k]) * (B[k * N + j]);" in code
    assert "C[i * N + j] = acc;" in code
    assert code.index("for (int j") < code.index("for (int k")


def test_the_matmul_rewriters_take_the_i_k_j_form() -> None:
    for rewriter in (BlockedMatmul(), TiledMatmul()):
        assert rewriter.applies(IKJ.source, RewriteContext(IKJ))


@pytest.mark.parametrize(
    ("zero", "nest"),
    [
        (ZERO.replace("M * N", "M * K"), NEST),  # zeroes other elements than it sums into
        (ZERO, NEST.replace("C[i * N + j] = C[i * N + j]", "C[i * K + j] = C[i * K + j]")),
        (ZERO, NEST.replace("B[k * N + j]", "C[k * N + j] * B[k * N + j]")),  # reads the output
        (ZERO.replace("= 0.0", "= 1.0"), NEST),  # starts at one
        (ZERO, NEST.replace("int k = 0", "int k = 1")),
        (ZERO, NEST.replace("j < N", "j < i")),  # not a rectangle
        (ZERO, NEST.replace("+ A[", "- A[")),
        (ZERO + "\n  C[0] = 1.0;", NEST),  # something between the loops
    ],
    ids=[
        "zeroes-other",
        "stride",
        "reads-output",
        "starts-at-one",
        "k-from-one",
        "triangle",
        "subtracts",
        "between",
    ],
)
def test_anything_else_is_left_as_it_is(zero: str, nest: str) -> None:
    task = _task(zero, nest)
    assert product_as_dot(task.source, task) is None


D13 = """#include <vector>
// regrapht: n = 37
void matmul(const std::vector<double>& A, const std::vector<double>& B, std::vector<double>& C,
            int n) {
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            double a = A[i * n + k];
            for (int j = 0; j < n; ++j) C[i * n + j] += a * B[k * n + j];
        }
}
"""


def test_a_product_added_to_the_output_adds_each_dot_product_once() -> None:
    added = _task("", NEST)
    code = product_as_dot(added.source, added)
    assert code is not None
    assert "double acc = 0;" in code
    assert "acc += (A[i * K + k]) * (B[k * N + j]);" in code
    assert "C[i * N + j] += acc;" in code
    assert code.index("for (int j") < code.index("for (int k")


@pytest.mark.slow
def test_an_added_product_over_vectors_is_tiled_and_computes_the_reference(
    tmp_path: Path,
) -> None:
    """With nothing zeroing ``C``, each output gets its products' sum added once (as a
    ``beta = 1`` GEMM adds it). Mapped as written, one thread per row ran the everyday
    ``d13`` at 0.38x the CPU end to end (``benchmarks/results/gpu-h200-everyday-f893afc``)."""
    task = unvalidated_task(D13, "matmul")
    (made, *_) = BlockedMatmul().apply(task.source, RewriteContext(task))
    assert run_on_cpu(task, made.code, tmp_path) == "PASS"


def test_a_hoisted_factor_that_depends_on_the_column_or_is_not_a_factor_is_left() -> None:
    hoisted = (
        "  for (int i = 0; i < M; ++i)\n"
        "    for (int k = 0; k < K; ++k) {\n"
        "      const double a = A[i * K + k]EXTRA;\n"
        "      for (int j = 0; j < N; ++j) C[i * N + j] += FACTOR * B[k * N + j];\n"
        "    }"
    )
    good = _task(ZERO, hoisted.replace("EXTRA", "").replace("FACTOR", "a"))
    assert product_as_dot(good.source, good) is not None
    for extra, factor in ((" * C[0]", "a"), ("", "A[i * K + k]")):
        task = _task(ZERO, hoisted.replace("EXTRA", extra).replace("FACTOR", factor))
        assert product_as_dot(task.source, task) is None


def test_a_loop_selected_by_line_is_never_restructured() -> None:
    selected = replace(PLAIN, loop=LoopSelection(1, 2, "for (int i = 0; i < M; ++i)"))
    assert product_as_dot(selected.source, selected) is None


@requires_nvcc
def test_the_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    for rewriter in (BlockedMatmul(), TiledMatmul()):
        (made, *_) = rewriter.apply(IKJ.source, RewriteContext(IKJ))
        compile_cuda(made.code, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("rewriter", [BlockedMatmul(), TiledMatmul()], ids=["blocked", "tiled"])
def test_the_candidates_compute_what_the_reference_computes(
    rewriter: RefusingRewriter, tmp_path: Path
) -> None:
    (made, *_) = rewriter.apply(PLAIN.source, RewriteContext(PLAIN))
    assert run_on_cpu(PLAIN, made.code, tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
def test_the_corpus_product_agrees_with_the_reference_on_the_gpu(tmp_path: Path) -> None:
    (made, *_) = BlockedMatmul().apply(IKJ.source, RewriteContext(IKJ))
    assert run_on_gpu(IKJ, made.code, tmp_path) == "PASS"
