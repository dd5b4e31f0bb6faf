"""Rewriters of existing kernels, on what parallelization produced and on hand-written CUDA."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.grid_stride import GridStrideLoop
from regrapht_core.rewrite.launch_config import LaunchConfiguration
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.protocol import RewriteContext, Rewriter
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.rewrite.restrict import ReadOnlyRestrict
from regrapht_core.rewrite.unroll import LoopUnrolling
from tests.core.rewrite import cases
from tests.core.rewrite.support import compile_cuda, requires_nvcc, run_on_cpu

HAND_WRITTEN_SAXPY = r"""
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  y[i] = a * x[i] + y[i];
}
__global__ void saxpy_guarded(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] == 0.0f) return;
    y[i] = a * x[i] + y[i];
  }
}
void saxpy(int n, float a, const float* x, float* y) {
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_guarded<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
"""


def _parallel(task: Task) -> str:
    rewriter: Rewriter = Parallelize() if task.returns == "void" else ParallelReduction()
    return rewriter.apply(task.source, RewriteContext(task))[-1].code


def _chain(task: Task, *rewriters: Rewriter) -> list[str]:
    """Every candidate of the last rewriter, after the first candidate of each before it."""
    code = _parallel(task)
    context = RewriteContext(task)
    for rewriter in rewriters[:-1]:
        code = rewriter.apply(code, context)[0].code
    return [c.code for c in rewriters[-1].apply(code, context)]


def test_grid_stride_turns_the_guard_into_a_loop() -> None:
    plain, capped = _chain(cases.SAXPY, GridStrideLoop())
    assert (
        "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)"
        in plain
    )
    assert "if (i < n)" not in plain
    assert "capped_grid(grid, 32)" in capped and "cudaDevAttrMultiProcessorCount" in capped


def test_grid_stride_turns_element_returns_into_continue() -> None:
    first, _ = GridStrideLoop().apply(HAND_WRITTEN_SAXPY, RewriteContext(cases.SAXPY))
    code = first.code
    assert "if (x[i] == 0.0f) continue;" in code
    assert "if (i >= n) return;" in code  # the early-exit shape is left alone


def test_grid_stride_makes_a_const_index_assignable() -> None:
    """The recurrence rewriter's kernels declare `const long long k`; the loop must advance
    it (the H100 suite saw `k += blockDim.x * gridDim.x` fail to compile)."""
    code = HAND_WRITTEN_SAXPY.replace(
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {",
        "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {",
    )
    first, _ = GridStrideLoop().apply(code, RewriteContext(cases.SAXPY))
    assert "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;" in first.code
    assert "const int i" not in first.code


def test_grid_stride_refuses_kernels_that_synchronise() -> None:
    code = _parallel(cases.SUM)
    verdict = GridStrideLoop().applies(code, RewriteContext(cases.SUM))
    assert not verdict and "not `i = <thread index>" in verdict.reason


def test_launch_configuration_offers_every_other_block_size() -> None:
    found = _chain(cases.SAXPY, LaunchConfiguration())
    assert len(found) == 3
    for size, code in zip((128, 512, 1024), found, strict=True):
        assert f"__launch_bounds__({size}) saxpy_kernel" in code
        assert f"const int block = {size};" in code


def test_launch_configuration_respells_literal_grids() -> None:
    found = LaunchConfiguration().apply(HAND_WRITTEN_SAXPY, RewriteContext(cases.SAXPY))
    assert "saxpy_guarded<<<(n + 127) / 128, 128>>>" in found[0].code


def test_launch_configuration_sizes_grid_stride_grids_by_sm_count() -> None:
    found = _chain(cases.SAXPY, GridStrideLoop(), LaunchConfiguration())
    assert "capped_grid(grid, 16)" in found[-1]
    reduction = LaunchConfiguration().apply(_parallel(cases.SUM), RewriteContext(cases.SUM))
    assert len(reduction) == 4


def test_launch_configuration_leaves_2d_launches_alone() -> None:
    code = Parallelize().apply(cases.MATRIX_ADD.source, RewriteContext(cases.MATRIX_ADD))[0].code
    verdict = LaunchConfiguration().applies(code, RewriteContext(cases.MATRIX_ADD))
    assert not verdict and "dim3" in verdict.reason


def test_restrict_marks_read_only_pointers_const() -> None:
    (code,) = _chain(cases.SAXPY, ReadOnlyRestrict())
    assert "const float* __restrict__ x" in code
    assert "float* __restrict__ y" in code and "const float* __restrict__ y" not in code


def test_restrict_refuses_when_buffers_may_alias() -> None:
    aliased = HAND_WRITTEN_SAXPY.replace("(n, a, dx, dy)", "(n, a, dy, dy)")
    verdict = ReadOnlyRestrict().applies(aliased, RewriteContext(cases.SAXPY))
    assert not verdict and "same buffer twice" in verdict.reason


def test_unroll_marks_run_time_inner_loops() -> None:
    (code,) = _chain(cases.MATVEC, LoopUnrolling())
    assert "#pragma unroll 4\n    for (int j = 0; j < m; ++j)" in code


def test_unroll_fully_unrolls_fixed_trip_loops() -> None:
    kernel = (
        "#define TAPS 5\n"
        "__global__ void fir(const float* x, float* y, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) {\n"
        "    float acc = 0.0f;\n"
        "    for (int k = 0; k < TAPS; ++k) acc += x[i + k];\n"
        "    y[i] = acc;\n"
        "  }\n}\n"
    )
    (candidate,) = LoopUnrolling().apply(kernel, RewriteContext(cases.SAXPY))
    assert "#pragma unroll\n    for (int k = 0; k < TAPS; ++k)" in candidate.code


def test_sequential_code_is_not_touched_by_kernel_rewriters() -> None:
    for rewriter in (GridStrideLoop(), LaunchConfiguration(), ReadOnlyRestrict(), LoopUnrolling()):
        assert rewriter.apply(cases.SAXPY.source, RewriteContext(cases.SAXPY)) == []


_CHAINS = [
    ("saxpy-grid-stride", cases.SAXPY, (GridStrideLoop(),)),
    ("saxpy-launch", cases.SAXPY, (GridStrideLoop(), LaunchConfiguration())),
    ("saxpy-restrict", cases.SAXPY, (ReadOnlyRestrict(),)),
    (
        "gelu-all",
        cases.ELEMENTWISE_HELPER,
        (ReadOnlyRestrict(), GridStrideLoop(), LaunchConfiguration()),
    ),
    ("stencil-grid-stride", cases.STENCIL, (GridStrideLoop(),)),
    ("matvec-unroll", cases.MATVEC, (ReadOnlyRestrict(), LoopUnrolling())),
    ("sum-launch", cases.SUM, (LaunchConfiguration(),)),
    ("max-restrict", cases.MAX_REDUCTION, (ReadOnlyRestrict(), LaunchConfiguration())),
]


@requires_nvcc
@pytest.mark.slow
@pytest.mark.parametrize(("name", "task", "rewriters"), _CHAINS, ids=[c[0] for c in _CHAINS])
def test_chained_candidates_compile_and_compute_the_reference(
    name: str, task: Task, rewriters: tuple[Rewriter, ...], tmp_path: Path
) -> None:
    for number, code in enumerate(_chain(task, *rewriters)):
        work = tmp_path / str(number)
        work.mkdir()
        compile_cuda(code, work)
        assert run_on_cpu(task, code, work) == "PASS", name
