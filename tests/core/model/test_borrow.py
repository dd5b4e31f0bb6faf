"""Helpers an answer uses by name only get the examples' definitions (model/borrow.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.model.borrow import borrow_definitions
from regrapht_core.verify.device import DEFAULT_ARCH

SNAPSHOT = Path(__file__).resolve().parents[3] / "graph_snapshots" / "regraph.msgpack"

EXAMPLE = """#include <cuda_runtime.h>
namespace {
#define CUDA_CHECK(call) ((void)(call))
constexpr int kBlockSize = 256;
template <typename T>
struct Buffer {
  explicit Buffer(int n) { CUDA_CHECK(cudaMalloc(&p, n * sizeof(T))); }
  ~Buffer() { cudaFree(p); }
  T* p = nullptr;
};
int blocks(int n) { return (n + kBlockSize - 1) / kBlockSize; }
}  // namespace
__global__ void scale_kernel(int n, float* x) { }
void scale(int n, float* x) { Buffer<float> d(n); scale_kernel<<<blocks(n), kBlockSize>>>(n, d.p); }
"""

ANSWER = """#include <cuda_runtime.h>
#include <cstdio>
__global__ void relu_kernel(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}
void relu(int n, float* y) {
  Buffer<float> d(n);
  CUDA_CHECK(cudaMemcpy(d.p, y, n * sizeof(float), cudaMemcpyHostToDevice));
  relu_kernel<<<blocks(n), kBlockSize>>>(n, d.p);
  CUDA_CHECK(cudaMemcpy(y, d.p, n * sizeof(float), cudaMemcpyDeviceToHost));
}
"""


def test_used_but_undefined_helpers_come_from_the_examples_with_what_they_need() -> None:
    borrowed = borrow_definitions(ANSWER, [EXAMPLE])
    assert borrowed.names == ("Buffer", "CUDA_CHECK", "blocks", "kBlockSize")
    code = borrowed.code
    assert code.startswith("#include <cuda_runtime.h>\n#include <cstdio>\n\n#define CUDA_CHECK")
    # dependencies before their users, the answer itself unchanged after them
    assert code.index("CUDA_CHECK(call)") < code.index("struct Buffer")
    assert code.index("constexpr int kBlockSize") < code.index("int blocks(int n)")
    assert code.endswith(ANSWER.split("\n", 2)[2])
    assert "scale_kernel" not in code  # not used: not copied


def test_names_the_answer_declares_itself_are_left_alone() -> None:
    own = ANSWER.replace(
        "void relu(int n, float* y) {",
        "#define CUDA_CHECK(x) x\nvoid relu(int n, float* y) {\n  const int kBlockSize = 128;",
    )
    borrowed = borrow_definitions(own, [EXAMPLE])
    assert "CUDA_CHECK" not in borrowed.names and "kBlockSize" not in borrowed.names
    assert "#define CUDA_CHECK(call)" not in borrowed.code


def test_nothing_to_borrow_or_a_broken_answer_comes_back_unchanged() -> None:
    plain = "__global__ void k(float* x) { x[0] = 1.0f; }\nvoid f(float* x) { k<<<1, 1>>>(x); }\n"
    assert borrow_definitions(plain, [EXAMPLE]).code == plain
    broken = ANSWER.replace("relu_kernel<<<", "relu_kernel<<<<")
    assert borrow_definitions(broken, [EXAMPLE]).code == broken
    assert borrow_definitions(ANSWER, []).code == ANSWER


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_an_answer_using_the_graphs_helpers_compiles_once_they_are_borrowed(
    tmp_path: Path,
) -> None:
    """The H100 failure at 28a1976: `identifier "DeviceBuffer" is undefined`."""
    examples = load_snapshot(SNAPSHOT).graph.examples("sequential", "parallelization")
    answer = """#include <cuda_runtime.h>
__global__ void hist(const unsigned char* d, int n, unsigned int* h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&h[d[i]], 1u);
}
void histogram(const unsigned char* data, int count, unsigned int* bins) {
  DeviceBuffer<unsigned char> d_data(count);
  DeviceBuffer<unsigned int> d_bins(256);
  CUDA_CHECK(cudaMemcpy(d_data.get(), data, count, cudaMemcpyHostToDevice));
  hist<<<(count + kBlockSize - 1) / kBlockSize, kBlockSize>>>(d_data.get(), count, d_bins.get());
  CUDA_CHECK(cudaMemcpy(bins, d_bins.get(), 1024, cudaMemcpyDeviceToHost));
}
"""
    borrowed = borrow_definitions(answer, [e.after for e in examples])
    assert {"CUDA_CHECK", "DeviceBuffer", "kBlockSize"} <= set(borrowed.names)
    source = tmp_path / "answer.cu"
    for code, compiles in ((answer, False), (borrowed.code, True)):
        source.write_text(code)
        argv = ["nvcc", "-c", "-o", "/dev/null", f"-arch={DEFAULT_ARCH}", "-std=c++17", str(source)]
        done = subprocess.run(argv, capture_output=True, check=False, timeout=300)
        assert (done.returncode == 0) is compiles, done.stderr
