"""Vectorized access, transfer minimization and pinned memory: structure, nvcc, CPU semantics."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.protocol import RewriteContext, Rewriter
from regrapht_core.rewrite.restrict import ReadOnlyRestrict
from regrapht_core.rewrite.transfers import PinnedMemory, TransferMinimization
from regrapht_core.rewrite.vectorize import VectorizedAccess
from tests.core.rewrite import cases
from tests.core.rewrite.support import compile_cuda, requires_nvcc, run_on_cpu

MODEL_STYLE_VECTOR_ADD = r"""
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
__global__ void add(const float *a, const float *b, float *c, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    c[idx] = a[idx] + b[idx];
  }
}
void vector_add(const float *a, const float *b, float *c, int n) {
  size_t bytes = n * sizeof(float);
  float *da, *db, *dc;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  float *staging = (float *)malloc(bytes);
  memcpy(staging, a, bytes);
  cudaMemcpy(da, staging, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice);
  add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  free(staging);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
"""


def _parallel(task: Task) -> str:
    return Parallelize().apply(task.source, RewriteContext(task))[-1].code


def test_vectorized_kernels_load_float4_and_keep_a_scalar_tail() -> None:
    (candidate,) = VectorizedAccess().apply(_parallel(cases.SAXPY), RewriteContext(cases.SAXPY))
    code = candidate.code
    assert "reinterpret_cast<const float4*>(x)[base / 4]" in code
    assert "reinterpret_cast<float4*>(y)[base / 4] = y_v;" in code
    assert "for (int i = base; i < (n); ++i)" in code
    assert "saxpy_kernel<<<(grid + 3) / 4, block>>>" in code


def test_write_only_outputs_are_not_loaded() -> None:
    (candidate,) = VectorizedAccess().apply(
        _parallel(cases.VECTOR_ADD), RewriteContext(cases.VECTOR_ADD)
    )
    assert "float4 c_v;" in candidate.code


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        (cases.STENCIL, "element 0"),
        (cases.MATVEC, "control flow"),
        (cases.ELEMENTWISE_HELPER, "vectorized"),
    ],
    ids=["stencil", "matvec", "gelu"],
)
def test_vectorization_refusals(task: Task, reason: str) -> None:
    verdict = VectorizedAccess().applies(_parallel(task), RewriteContext(task))
    if reason == "vectorized":
        assert verdict
        return
    assert not verdict and reason in verdict.reason


def test_vectorization_needs_pointers_this_code_allocated() -> None:
    kernel_only = MODEL_STYLE_VECTOR_ADD.split("void vector_add", maxsplit=1)[0]
    verdict = VectorizedAccess().applies(kernel_only, RewriteContext(cases.VECTOR_ADD))
    assert not verdict and "alignment" in verdict.reason


def test_dead_uploads_of_outputs_are_dropped() -> None:
    (candidate,) = TransferMinimization().apply(
        MODEL_STYLE_VECTOR_ADD, RewriteContext(cases.VECTOR_ADD)
    )
    assert "cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice);" not in candidate.code
    assert "cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);" in candidate.code


def test_uploads_of_partially_written_outputs_stay() -> None:
    verdict = TransferMinimization().applies(
        _parallel(cases.STENCIL), RewriteContext(cases.STENCIL)
    )
    assert not verdict and "may be read first" in verdict.reason


def test_only_staging_buffers_the_code_owns_are_pinned() -> None:
    (candidate,) = PinnedMemory().apply(MODEL_STYLE_VECTOR_ADD, RewriteContext(cases.VECTOR_ADD))
    assert "cudaMallocHost(&staging, bytes);" in candidate.code
    assert "cudaFreeHost(staging);" in candidate.code
    verdict = PinnedMemory().applies(_parallel(cases.SAXPY), RewriteContext(cases.SAXPY))
    assert not verdict and "caller's buffers are not pinned" in verdict.reason


_CASES = [
    ("saxpy-vec4", cases.SAXPY, lambda: _parallel(cases.SAXPY), VectorizedAccess()),
    ("add-vec4", cases.VECTOR_ADD, lambda: _parallel(cases.VECTOR_ADD), VectorizedAccess()),
    (
        "gelu-restrict-vec4",
        cases.ELEMENTWISE_HELPER,
        lambda: (
            ReadOnlyRestrict()
            .apply(_parallel(cases.ELEMENTWISE_HELPER), RewriteContext(cases.ELEMENTWISE_HELPER))[0]
            .code
        ),
        VectorizedAccess(),
    ),
    ("model-transfers", cases.VECTOR_ADD, lambda: MODEL_STYLE_VECTOR_ADD, TransferMinimization()),
    ("model-pinned", cases.VECTOR_ADD, lambda: MODEL_STYLE_VECTOR_ADD, PinnedMemory()),
    ("model-vec4", cases.VECTOR_ADD, lambda: MODEL_STYLE_VECTOR_ADD, VectorizedAccess()),
]


@requires_nvcc
@pytest.mark.slow
@pytest.mark.parametrize(("name", "task", "before", "rewriter"), _CASES, ids=[c[0] for c in _CASES])
def test_candidates_compile_and_compute_the_reference(
    name: str, task: Task, before: Callable[[], str], rewriter: Rewriter, tmp_path: Path
) -> None:
    for number, candidate in enumerate(rewriter.apply(before(), RewriteContext(task))):
        work = tmp_path / str(number)
        work.mkdir()
        compile_cuda(candidate.code, work)
        assert run_on_cpu(task, candidate.code, work) == "PASS", name
