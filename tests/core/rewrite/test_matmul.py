"""The matrix-product rewriters: shared-memory tiles (one output per thread) and register
blocks over double-buffered shared tiles, for `C = A B` nests over any M, N and K; every
other shape of nest, and transposed operands, refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import Task
from regrapht_core.cxx.parse import node_text, walk
from regrapht_core.cxx.syntax import parse
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.rewrite.matmul import BlockedMatmul, TiledMatmul
from regrapht_core.rewrite.protocol import RefusingRewriter, RewriteContext
from regrapht_core.rewrite.restrict import ReadOnlyRestrict
from regrapht_core.rewrite.unroll import LoopUnrolling
from tests.core.rewrite import cases
from tests.core.rewrite.support import (
    compile_cuda,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    unvalidated_task,
)

TASKS = Path(__file__).parents[3] / "benchmarks" / "tasks"
SGEMM = unvalidated_task((TASKS / "dense_sgemm.cpp").read_text(), "sgemm")
GEMM = unvalidated_task(
    "// regrapht: m = 150; n = 140; p = 37; alpha = 1.5; beta = -0.5; "
    "A[m*p] in; B[p*n] in; C[m*n] inout\n"
    "void gemm(int m, int n, int p, float alpha, float beta, const float* A, const float* B,\n"
    "          float* C) {\n"
    "  for (int i = 0; i < m; ++i) {\n"
    "    for (int j = 0; j < n; ++j) {\n"
    "      float acc = 0.0f;\n"
    "      for (int k = 0; k < p; ++k) {\n"
    "        acc += A[i * p + k] * B[k * n + j];\n"
    "      }\n"
    "      C[i * n + j] = alpha * acc + beta * C[i * n + j];\n"
    "    }\n"
    "  }\n"
    "}\n",
    "gemm",
)
"""Rectangular, with an epilogue that reads the output: the emulator's two multiprocessors
make the larger sizes take the 128x128 kernel and the smaller ones the 64x32 kernel."""
DGEMM = unvalidated_task(
    "// regrapht: rows = 70; cols = 45; inner = 33; a[rows*inner] in; b[inner*cols] in; "
    "c[rows*cols] out\n"
    "void dgemm(long rows, long cols, long inner, const double* a, const double* b, double* c) {\n"
    "  for (long r = 0; r < rows; r++)\n"
    "    for (long s = 0; s < cols; s++) {\n"
    "      double total = 0;\n"
    "      for (long t = 0; t < inner; t++) total = total + b[t * cols + s] * a[inner * r + t];\n"
    "      c[cols * r + s] = total;\n"
    "    }\n"
    "}\n",
    "dgemm",
)
"""Double, other names, `long` loops, the factors swapped and `total = total + ...`."""
VECTORS = unvalidated_task(
    "#include <vector>\n"
    "// regrapht: n = 40; a[n*n] in; b[n*n] in; c[n*n] out\n"
    "void matmul(const std::vector<float>& a, const std::vector<float>& b,\n"
    "            std::vector<float>& c, int n) {\n"
    "  for (int i = 0; i < n; ++i)\n"
    "    for (int j = 0; j < n; ++j) {\n"
    "      float sum = 0.f;\n"
    "      for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];\n"
    "      c[i * n + j] = sum;\n"
    "    }\n"
    "}\n",
    "matmul",
)
"""Containers: the rewriters work on the pointer form, like every loop rewriter."""


def padded(pad: int) -> Task:
    """Whole 128x128 tiles (two, one per emulated multiprocessor) of a product whose ``A``
    rows are ``p + pad`` floats apart: a multiple of four takes the kernel that reads four at
    a time, any other the edge-checked one (a misaligned 16-byte read faults on a GPU)."""
    return unvalidated_task(
        f"// regrapht: m = 256; n = 128; p = 64; pad = {pad}; "
        "A[m*(p + pad)] in; B[p*n] in; C[m*n] out\n"
        "void padded(int m, int n, int p, int pad, const float* A, const float* B, float* C) {\n"
        "  for (int i = 0; i < m; ++i)\n"
        "    for (int j = 0; j < n; ++j) {\n"
        "      float acc = 0.0f;\n"
        "      for (int k = 0; k < p; ++k) acc += A[i * (p + pad) + k] * B[k * n + j];\n"
        "      C[i * n + j] = acc;\n"
        "    }\n"
        "}\n",
        "padded",
    )


NESTS = [SGEMM, GEMM, DGEMM, padded(4), padded(2), VECTORS]
NEST_IDS = ["sgemm", "gemm-epilogue", "dgemm", "aligned-rows", "padded-rows", "vectors"]
RUN = NESTS[:5]
"""What the harness can call (it passes pointers, not containers)."""
RUN_IDS = NEST_IDS[:5]


def candidate(rewriter: RefusingRewriter, task: Task) -> str:
    (made,) = rewriter.apply(task.source, RewriteContext(task))
    return made.code


def refusal(rewriter: RefusingRewriter, body: str, *, store: str = "C[i * n + j] = acc;") -> str:
    task = unvalidated_task(
        "// regrapht: n = 40; A[n*n] in; B[n*n] in; C[n*n] inout\n"
        "void mm(int n, const float* A, const float* B, float* C) {\n"
        "  for (int i = 0; i < n; ++i)\n"
        "    for (int j = 0; j < n; ++j) {\n"
        f"      {body}\n"
        f"      {store}\n"
        "    }\n"
        "}\n",
        "mm",
    )
    return rewriter.applies(task.source, RewriteContext(task)).reason


def kernel_names(code: str) -> list[str]:
    root = parse(code).root_node
    found = []
    for node in walk(root):
        if node.type == "function_definition" and any(
            c.type == "__global__" for c in node.children
        ):
            declarator = node.child_by_field_name("declarator")
            name = declarator.child_by_field_name("declarator") if declarator else None
            found.append(node_text(name) if name is not None else "")
    return found


def test_sgemm_gets_register_blocks_then_shared_tiles_then_the_plain_mappings() -> None:
    propose = rewriter_propose_fn()
    request = ProposeRequest(SGEMM, "sequential", "parallelization", SGEMM.source)
    producers = [propose(request).producer for _ in range(4)]
    assert producers == [
        "rewriter:register_blocking",
        "rewriter:shared_memory_tiling",
        "rewriter:parallelization",
        "rewriter:parallelization",
    ]


def test_the_blocked_candidate_picks_its_tile_shape_by_the_sm_count_and_the_edges() -> None:
    code = candidate(BlockedMatmul(), SGEMM)
    assert kernel_names(code) == ["sgemm_whole128x128", "sgemm_tiles128x128", "sgemm_tiles64x32"]
    assert "alignas(16) __shared__ float a_tile[2][8][128 + 4];" in code
    assert "alignas(16) __shared__ float b_tile[2][16][32 + 4];" in code
    assert "__launch_bounds__(256)" in code and "__launch_bounds__(128)" in code
    assert "*reinterpret_cast<const float4*>(from)" in code  # 16-byte reads
    assert "*reinterpret_cast<float4*>(to) = make_float4(" in code  # 16-byte shared stores
    assert "cudaDevAttrMultiProcessorCount" in code
    # whole tiles and 16-byte rows: M, N multiples of 128, K of 8, both strides of 4
    assert (
        "const bool whole = (count) % 128 == 0 && (columns) % 128 == 0 && "
        "(static_cast<long long>(n)) % 8 == 0 && (static_cast<long long>(n)) % 4 == 0 && "
        "(static_cast<long long>(n)) % 4 == 0;"
    ) in code
    assert "if (large_tiles >= sms && whole) {" in code
    assert "sgemm_whole128x128<<<static_cast<unsigned int>(large_tiles), 256>>>" in code
    assert "} else if (large_tiles >= sms) {" in code
    assert "sgemm_tiles64x32<<<static_cast<unsigned int>(small_tiles), 128>>>" in code
    # the loop's own subscript: guarded, zero past the edges; four at a time on whole tiles
    assert "a_next[q] = (i < n && k < n) ? A[i * n + k] : static_cast<float>(0);" in code
    assert "load4(&a_next[4 * q], &A[i * n + k]);" in code
    assert "load4(&b_next[4 * q], &B[k * n + j]);" in code
    assert "store4(&b_tile[0][e / 128][e % 128], &b_next[4 * q]);" in code
    assert "float acc = sums[m][n2];" in code and "C[i * n + j] = acc;" in code
    assert code.count("__syncthreads();") == 6  # per kernel: one per slice, one before


def test_the_leading_dimensions_the_host_checks_are_the_loops_own() -> None:
    code = candidate(BlockedMatmul(), padded(2))
    assert "(static_cast<long long>(p + pad)) % 4 == 0 && (static_cast<long long>(n)) % 4" in (code)
    assert "load4(&a_next[4 * q], &A[i * (p + pad) + k]);" in code


def test_the_tiled_candidate_stages_tiles_of_both_operands() -> None:
    code = candidate(TiledMatmul(), SGEMM)
    assert kernel_names(code) == ["sgemm_tiled32"]
    assert "__shared__ float a_tile[32][32];" in code
    assert "sum += a_tile[ty][kk] * b_tile[kk][tx];" in code
    assert "const dim3 block(32, 32);" in code
    (small,) = TiledMatmul().apply(SGEMM.source, RewriteContext(SGEMM), {"tile": 16})
    assert "__shared__ float a_tile[16][16];" in small.code
    assert TiledMatmul().apply(SGEMM.source, RewriteContext(SGEMM), {"tile": 12}) == []


def test_the_epilogue_runs_verbatim_per_output_and_names_never_collide() -> None:
    code = candidate(BlockedMatmul(), GEMM)
    assert "C[i * n + j] = alpha * acc + beta * C[i * n + j];" in code
    assert "for (int n2 = 0; n2 < 8; ++n2) {" in code  # `n` is the user's
    dgemm = candidate(BlockedMatmul(), DGEMM)
    assert "alignas(16) __shared__ double b_tile[2][8][128 + 4];" in dgemm
    assert "void load4(double* to, const double* from)" in dgemm
    assert "void store4(double* to, const double* from)" in dgemm
    assert "float4" not in dgemm
    assert "c[cols * r + s] = total;" in dgemm


@pytest.mark.parametrize(
    ("body", "store", "reason"),
    [
        (
            "float acc = 0; for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[j * n + k];",
            "C[i * n + j] = acc;",
            "`B[j * n + k]` reads its matrix transposed",
        ),
        (
            "float acc = 0; for (int k = 0; k < n; ++k) acc += A[k * n + i] * B[k * n + j];",
            "C[i * n + j] = acc;",
            "`A[k * n + i]` reads its matrix transposed",
        ),
        (
            "float acc = 1; for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];",
            "C[i * n + j] = acc;",
            "the accumulator starts at `1`, not 0",
        ),
        (
            "float acc = 0; for (int k = 0; k < n; ++k) acc -= A[i * n + k] * B[k * n + j];",
            "C[i * n + j] = acc;",
            "is not `acc += A[...] * B[...];`",
        ),
        (
            "float acc = 0; for (int k = 0; k < n; ++k) acc += A[i * n + k] + B[k * n + j];",
            "C[i * n + j] = acc;",
            "is not `acc += A[...] * B[...];`",
        ),
        (
            "float acc = 0; for (int k = 0; k < j; ++k) acc += A[i * n + k] * B[k * n + j];",
            "C[i * n + j] = acc;",
            "the bound `j` of the loop over `k` is not a loop-invariant expression",
        ),
        (
            "float acc = 0; for (int k = 1; k < n; ++k) acc += A[i * n + k] * B[k * n + j];",
            "C[i * n + j] = acc;",
            "the loop over `k` starts at `1`, not 0",
        ),
        (
            "float acc = 0; for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j + 1];",
            "C[i * n + j] = acc;",
            "`B[k * n + j + 1]` is not indexed `i*lda + k` or `k*ldb + j`",
        ),
        (
            "float acc = 0; for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];",
            "C[i * n + j] = acc; if (acc > 1) break;",
            "leaves the loop over columns early",
        ),
        (
            "float acc = 0; for (int k = 0; k < n; ++k) { acc += A[i * n + k] * B[k * n + j]; "
            "acc += 1; }",
            "C[i * n + j] = acc;",
            "does more than `acc += A[...] * B[...];`",
        ),
        (
            "C[i * n + j] = 0; for (int k = 0; k < n; ++k) C[i * n + j] += A[i * n + k] * "
            "B[k * n + j];",
            "",
            "the loop over `j` does not declare an accumulator",
        ),
    ],
)
def test_other_nests_are_refused_with_the_reason(body: str, store: str, reason: str) -> None:
    for rewriter in (BlockedMatmul(), TiledMatmul()):
        assert reason in refusal(rewriter, body, store=store)


def test_integer_products_and_loops_that_are_not_nests_are_refused() -> None:
    task = unvalidated_task(
        "// regrapht: n = 40; A[n*n] in; B[n*n] in; C[n*n] out\n"
        "void imm(int n, const int* A, const int* B, int* C) {\n"
        "  for (int i = 0; i < n; ++i)\n"
        "    for (int j = 0; j < n; ++j) {\n"
        "      int acc = 0;\n"
        "      for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];\n"
        "      C[i * n + j] = acc;\n"
        "    }\n"
        "}\n",
        "imm",
    )
    reason = BlockedMatmul().applies(task.source, RewriteContext(task)).reason
    assert "is not a plain float or double" in reason
    saxpy = BlockedMatmul().applies(cases.SAXPY.source, RewriteContext(cases.SAXPY)).reason
    assert saxpy.startswith("not a matrix product: the body of the loop over `i` is not")
    histogram = cases.HISTOGRAM
    parallel = TiledMatmul().applies(histogram.source, RewriteContext(histogram)).reason
    assert "h[" in parallel or "hist" in parallel  # the independence analysis's own reason


def test_an_epilogue_that_writes_another_element_is_refused() -> None:
    reason = refusal(
        BlockedMatmul(),
        "float acc = 0; for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];",
        store="C[i * n + j] = acc; for (int q = 0; q < n; ++q) C[i * n + q] += 1;",
    )  # the row is the iteration's own, so the analysis accepts it; (i, j) do not own it
    assert "`C[i * n + q]` is not the output element `C[i*ldc + j]`" in reason


@requires_nvcc
@pytest.mark.parametrize("task", NESTS, ids=NEST_IDS)
def test_the_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    compile_cuda(candidate(BlockedMatmul(), task), tmp_path)
    compile_cuda(candidate(TiledMatmul(), task), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", RUN, ids=RUN_IDS)
def test_the_blocked_candidates_compute_what_the_reference_computes(
    task: Task, tmp_path: Path
) -> None:
    assert run_on_cpu(task, candidate(BlockedMatmul(), task), tmp_path) == "PASS"


@pytest.mark.slow
@pytest.mark.parametrize("task", RUN[1:], ids=RUN_IDS[1:])
def test_the_tiled_candidates_compute_what_the_reference_computes(
    task: Task, tmp_path: Path
) -> None:
    (tiled,) = TiledMatmul().apply(task.source, RewriteContext(task), {"tile": 16})
    assert run_on_cpu(task, tiled.code, tmp_path) == "PASS"


@pytest.mark.slow
def test_the_cpu_check_catches_a_candidate_that_does_not_zero_the_edges(tmp_path: Path) -> None:
    broken = candidate(BlockedMatmul(), GEMM).replace(
        "static_cast<float>(0);", "static_cast<float>(1);"
    )
    assert "FAIL" in run_on_cpu(GEMM, broken, tmp_path)


@pytest.mark.slow
def test_the_follow_up_kernel_rewriters_keep_the_blocked_kernels_correct(tmp_path: Path) -> None:
    code = candidate(BlockedMatmul(), GEMM)
    for follow_up in (ReadOnlyRestrict(), LoopUnrolling()):
        (made,) = follow_up.apply(code, RewriteContext(GEMM))
        code = made.code
    assert "__restrict__" in code and "#pragma unroll 4" in code
    assert run_on_cpu(GEMM, code, tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", RUN, ids=RUN_IDS)
@pytest.mark.parametrize("rewriter", [BlockedMatmul(), TiledMatmul()], ids=["blocked", "tiled"])
def test_the_candidates_agree_with_the_reference_on_the_gpu(
    rewriter: RefusingRewriter, task: Task, tmp_path: Path
) -> None:
    assert run_on_gpu(task, candidate(rewriter, task), tmp_path) == "PASS"
