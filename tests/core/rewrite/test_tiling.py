"""The tiled transpose: a nest that writes along one loop variable and reads along the other
is staged through a padded shared-memory tile; every other nest is refused with the reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import SizeBinding, Task
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.tiling import TiledTranspose
from tests.core.rewrite.support import (
    compile_cuda,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    unvalidated_task,
)

TASKS = Path(__file__).resolve().parents[3] / "benchmarks" / "tasks"
SIZES: tuple[SizeBinding, ...] = (
    {"m": 1, "n": 1},
    {"m": 33, "n": 70},
    {"m": 67, "n": 5},
    {"m": 100, "n": 129},
)
"""Neither multiples of 32 nor equal, so partial tiles along both loops are exercised."""


def _small(task: Task) -> Task:
    return dataclasses.replace(task, correctness_sizes=SIZES, timing_size=SIZES[-1])


def _suite(file: str, function: str) -> Task:
    return _small(unvalidated_task((TASKS / file).read_text(encoding="utf-8"), function))


TRANSPOSE = _suite("dense_transpose.cpp", "transpose")
"""Loops over the output's rows: contiguous writes, strided reads."""
COLWRITE = _suite("dense_transpose_colwrite.cpp", "transpose_colwrite")
"""Loops over the input's rows: contiguous reads, strided writes."""
SCALED = _small(
    unvalidated_task(
        "#include <cstddef>\n"
        "// regrapht: m = 100; n = 100; in[m*n] in; bias[m] in; out[n*m] out\n"
        "void scaled_transpose(size_t m, size_t n, float alpha, const float* in,\n"
        "                      const float* bias, float* out) {\n"
        "  for (size_t i = 0; i < m; i++)\n"
        "    for (size_t j = 0; j < n; j++)\n"
        "      out[j * m + i] = alpha * in[i * n + j] + bias[i];\n"
        "}\n",
        "scaled_transpose",
    )
)
"""64-bit loop variables, a scalar factor, and a read that is one element per warp."""
SHIFTED = _small(
    unvalidated_task(
        "// regrapht: m = 100; n = 100; in[m*n] in; out[n*m] inout\n"
        "void shifted(int m, int n, double shift, const double* in, double* out) {\n"
        "  for (int j = 1; j < n; ++j) {\n"
        "    for (int i = 0; i <= m - 1; ++i) {\n"
        "      out[j * m + i] = 2.0 * in[i * n + j] - shift;\n"
        "    }\n"
        "  }\n"
        "}\n",
        "shifted",
    )
)
"""A loop from 1 (row 0 of ``out`` keeps the caller's values), an inclusive bound, doubles."""
TILED = [TRANSPOSE, COLWRITE, SCALED, SHIFTED]


def _ids(tasks: list[Task]) -> list[str]:
    return [t.name for t in tasks]


def tiled(task: Task) -> list[str]:
    found = TiledTranspose().apply(task.source, RewriteContext(task))
    assert found, TiledTranspose().applies(task.source, RewriteContext(task)).reason
    return [c.code for c in found]


def refusal(body: str) -> str:
    task = unvalidated_task(
        "// regrapht: m = 100; n = 100; in[m*n] in; out[n*m] out\n"
        "void nest(int m, int n, const float* in, float* out) {\n"
        f"  for (int j = 0; j < n; ++j) {{\n    for (int i = 0; i < m; ++i) {{ {body} }}\n  }}\n"
        "}\n",
        "nest",
    )
    verdict = TiledTranspose().applies(task.source, RewriteContext(task))
    assert not verdict.ok
    return verdict.reason


def test_the_first_step_of_a_transpose_is_the_tiled_kernel() -> None:
    propose = rewriter_propose_fn()
    request = ProposeRequest(TRANSPOSE, "sequential", "parallelization", TRANSPOSE.source)
    first = propose(request)
    assert first.code is not None, first.message
    assert first.producer == "rewriter:shared_memory_tiling"
    assert "shared-memory tiling with padding" in first.think
    assert "__shared__ float tile[32][33];" in first.code
    assert "__shared__ float tile[64][65];" in (propose(request).code or "")
    assert propose(request).producer == "rewriter:parallelization"  # then the 2-D mapping


def test_the_tile_is_loaded_along_the_read_and_stored_along_the_write() -> None:
    code = tiled(TRANSPOSE)[0]
    # Loads: x runs along j, the read's unit stride; each thread takes rows y, y+8, ...
    assert "const int j = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);" in (
        code
    )
    assert "for (int row = static_cast<int>(threadIdx.y); row < 32; row += 8)" in code
    assert "if (j < n && i < m) tile[row][threadIdx.x] = in[i * n + j];" in code
    # Stores: x runs along i, the write's unit stride, out of the transposed tile position.
    assert "const int i = tile_start + static_cast<int>(threadIdx.x);" in code
    assert "if (j < n && i < m) out[j * m + i] = tile[threadIdx.x][row];" in code
    assert code.count("__syncthreads();") == 2
    assert "const dim3 block(32, 8);" in code
    assert "tiles < 65535 ? tiles : 65535" in code  # tiles past the grid's y limit: a stride


def test_either_loop_order_gives_the_same_kernel() -> None:
    def kernel(code: str) -> str:
        return code[code.index("__global__") : code.index("\n}\n")].split("(", 1)[1]

    assert kernel(tiled(TRANSPOSE)[0]) == kernel(tiled(COLWRITE)[0])


def test_lower_bounds_inclusive_bounds_and_64_bit_variables_are_kept() -> None:
    shifted = tiled(SHIFTED)[0]
    assert "tile_start = static_cast<int>(blockIdx.y) * 32; tile_start <= (m - 1);" in shifted
    assert "const int j = 1 + static_cast<int>(blockIdx.x) * 32 + row;" in shifted
    assert "if (j < n && i <= (m - 1)) tile[row][threadIdx.x] = 2.0 * in[i * n + j] - shift;" in (
        shifted
    )
    assert "__shared__ double tile[32][33];" in shifted
    scaled = tiled(SCALED)[0]
    assert "const size_t j = static_cast<size_t>(blockIdx.x) * 32" in scaled
    assert "tile[row][threadIdx.x] = alpha * in[i * n + j] + bias[i];" in scaled


def test_the_second_candidate_has_a_64_wide_tile() -> None:
    code = tiled(TRANSPOSE)[1]
    assert "__shared__ float tile[64][65];" in code
    assert "const dim3 block(64, 8);" in code
    assert "row < 64; row += 8" in code


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("out[j * m + i] = in[j * m + i];", "like the write"),
        ("out[j * m + i] = in[i];", "no read is contiguous along `j`"),
        ("out[j * m + i] = in[(i * i) * n + j];", "not affine in `i`"),
        ("out[j * m + i] = in[i * n + 2 * j];", "contiguous along neither"),
        ("float v = in[i * n + j]; out[j * m + i] = v;", "has 2 statements"),
        ("out[j * m + i] += in[i * n + j];", "updates the element it writes"),
        ("out[j * m + i] = 0.5f * out[j * m + i] + in[i * n + j];", "reads `out`, which it"),
        ("out[j * m + i] = 1.0f;", "no read is contiguous"),
    ],
)
def test_nests_a_tile_does_not_help_are_refused_with_the_reason(body: str, reason: str) -> None:
    assert reason in refusal(body)


def test_a_single_loop_is_not_a_nest() -> None:
    task = unvalidated_task(
        "// regrapht: n = 100; in[n] in; out[n] out\n"
        "void copy(int n, const float* in, float* out) {\n"
        "  for (int i = 0; i < n; ++i) out[i] = in[i];\n}\n",
        "copy",
    )
    reason = TiledTranspose().applies(task.source, RewriteContext(task)).reason
    assert "is not a perfect nest of two counted loops" in reason


@requires_nvcc
@pytest.mark.parametrize("task", TILED, ids=_ids(TILED))
def test_the_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(tiled(task)):
        work = tmp_path / str(number)
        work.mkdir()
        compile_cuda(code, work)


@pytest.mark.slow
@pytest.mark.parametrize("task", TILED, ids=_ids(TILED))
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(tiled(task)):
        work = tmp_path / str(number)
        work.mkdir()
        assert run_on_cpu(task, code, work) == "PASS"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("original", "mutant"),
    [
        ("= tile[threadIdx.x][row];", "= tile[row][threadIdx.x];"),  # not transposed
        ("row < 32; row += 8", "row < 24; row += 8"),  # a quarter of each tile left out
    ],
    ids=["untransposed-store", "missing-rows"],
)
def test_the_cpu_check_catches_broken_tiles(original: str, mutant: str, tmp_path: Path) -> None:
    code = tiled(TRANSPOSE)[0]
    assert original in code
    assert run_on_cpu(TRANSPOSE, code.replace(original, mutant), tmp_path) != "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", TILED, ids=_ids(TILED))
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    for number, code in enumerate(tiled(task)):
        work = tmp_path / str(number)
        work.mkdir()
        assert run_on_gpu(task, code, work) == "PASS"
