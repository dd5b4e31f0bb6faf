"""Tasks and honest candidates shared by the verifier's tests: saxpy, a sum, matmul."""

from __future__ import annotations

from regrapht_core.contracts.task import (
    ArgSpec,
    ParamKind,
    Role,
    SizeBinding,
    Task,
    Tolerance,
)

__all__ = [
    "COPY_INT",
    "MATMUL",
    "MATMUL_FIRST_ROW",
    "MATMUL_NAIVE",
    "MATMUL_TILED",
    "SAXPY",
    "SAXPY_CUDA",
    "SAXPY_WRONG",
    "SUM",
    "SUM_CUDA",
    "VECTOR_INT",
]


_SIZES: tuple[SizeBinding, ...] = ({"n": 1}, {"n": 7}, {"n": 257}, {"n": 1000})

SAXPY = Task(
    name="saxpy",
    source=(
        "void saxpy(int n, float a, const float* x, float* y) {\n"
        "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n"
    ),
    entry="saxpy",
    signature="void saxpy(int n, float a, const float* x, float* y)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("a", ParamKind.SCALAR, "float", value="2.5"),
        ArgSpec("x", ParamKind.POINTER, "float", length="n"),
        ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ),
    correctness_sizes=_SIZES,
    timing_size={"n": 1 << 24},
)

SAXPY_CUDA = r"""
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void saxpy(int n, float a, const float* x, float* y) {
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
"""

SAXPY_WRONG = SAXPY_CUDA.replace("a * x[i] + y[i]", "a * x[i] - y[i]")

SUM = Task(
    name="sum",
    source=(
        "float sum(const float* x, int n) {\n"
        "  float s = 0.0f;\n  for (int i = 0; i < n; ++i) s += x[i];\n  return s;\n}\n"
    ),
    entry="sum",
    signature="float sum(const float* x, int n)",
    returns="float",
    args=(
        ArgSpec("x", ParamKind.POINTER, "float", length="n"),
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
    ),
    correctness_sizes=_SIZES,
    timing_size={"n": 1 << 24},
    tolerance=Tolerance(atol=0.5, rtol=1e-3),
)

SUM_CUDA = r"""
#include <cuda_runtime.h>
__global__ void partial_sums(const float* x, int n, float* out) {
  __shared__ float cache[256];
  float s = 0.0f;
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s += x[i];
  cache[threadIdx.x] = s;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) cache[threadIdx.x] += cache[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = cache[0];
}
float sum(const float* x, int n) {
  const int blocks = 1024;
  float *dx = nullptr, *dpart = nullptr;
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float) + 4);
  cudaMalloc(&dpart, blocks * sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  partial_sums<<<blocks, 256>>>(dx, n, dpart);
  float part[blocks];
  cudaMemcpy(part, dpart, sizeof part, cudaMemcpyDeviceToHost);
  double total = 0.0;
  for (int b = 0; b < blocks; ++b) total += part[b];
  cudaFree(dx);
  cudaFree(dpart);
  return static_cast<float>(total);
}
"""

MATMUL = Task(
    name="matmul",
    source=(
        "void matmul(int n, const float* A, const float* B, float* C) {\n"
        "  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j) {\n"
        "      float s = 0.0f;\n"
        "      for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];\n"
        "      C[i * n + j] = s;\n    }\n}\n"
    ),
    entry="matmul",
    signature="void matmul(int n, const float* A, const float* B, float* C)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("A", ParamKind.POINTER, "float", length="n*n"),
        ArgSpec("B", ParamKind.POINTER, "float", length="n*n"),
        ArgSpec("C", ParamKind.POINTER, "float", Role.OUT, length="n*n"),
    ),
    correctness_sizes=({"n": 1}, {"n": 7}, {"n": 33}, {"n": 100}),
    timing_size={"n": 512},
    tolerance=Tolerance(atol=1e-3, rtol=1e-3),
)

_MATMUL_HOST = r"""
void matmul(int n, const float* A, const float* B, float* C) {
  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  cudaMalloc(&dA, bytes);
  cudaMalloc(&dB, bytes);
  cudaMalloc(&dC, bytes);
  cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul_kernel<<<grid, block>>>(n, dA, dB, dC);
  cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}
"""

MATMUL_NAIVE = (
    r"""
#include <cuda_runtime.h>
#define TILE 16
__global__ void matmul_kernel(int n, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += A[row * n + k] * B[k * n + col];
  C[row * n + col] = s;
}
"""
    + _MATMUL_HOST
)

MATMUL_TILED = (
    r"""
#include <cuda_runtime.h>
#define TILE 32
__global__ void matmul_kernel(int n, const float* A, const float* B, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float s = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    int ax = t + threadIdx.x, by = t + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ax < n) ? A[row * n + ax] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (col < n && by < n) ? B[by * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) s += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = s;
}
"""
    + _MATMUL_HOST
)

MATMUL_FIRST_ROW = r"""
#include <cuda_runtime.h>
__global__ void first_row(int n, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= n) return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += A[k] * B[k * n + col];
  C[col] = s;
}
void matmul(int n, const float* A, const float* B, float* C) {
  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  cudaMalloc(&dA, n * sizeof(float));
  cudaMalloc(&dB, bytes);
  cudaMalloc(&dC, n * sizeof(float));
  cudaMemcpy(dA, A, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
  first_row<<<(n + 255) / 256, 256>>>(n, dA, dB, dC);
  cudaMemcpy(C, dC, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}
"""
"""The first row on the GPU, the rest left in the host loop: what a rewriter produces when
it can map only one loop (kernel-only time must not call it fast)."""

VECTOR_INT = Task(
    name="histogram",
    source=(
        "#include <vector>\n"
        "long long histogram(const std::vector<int>& v, std::vector<int>& bins, unsigned k) {\n"
        "  long long total = 0;\n"
        "  for (int x : v) { bins[static_cast<unsigned>(x + 100) % k] += 1; total += x; }\n"
        "  return total;\n}\n"
    ),
    entry="histogram",
    signature="long long histogram(const std::vector<int>& v, std::vector<int>& bins, unsigned k)",
    returns="long long",
    args=(
        ArgSpec("v", ParamKind.VECTOR, "int", length="n"),
        ArgSpec("bins", ParamKind.VECTOR, "int", Role.INOUT, length="16"),
        ArgSpec("k", ParamKind.SCALAR, "unsigned", value="16"),
    ),
    correctness_sizes=({"n": 1}, {"n": 100}),
    timing_size={"n": 1 << 16},
)

COPY_INT = Task(
    name="stamp",
    source="void stamp(int n, const int* x, int* y) { for (int i = 0; i < n; ++i) y[i] = x[i]; }\n",
    entry="stamp",
    signature="void stamp(int n, const int* x, int* y)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("x", ParamKind.POINTER, "int", length="n"),
        ArgSpec("y", ParamKind.POINTER, "int", Role.OUT, length="n"),
    ),
    correctness_sizes=({"n": 1}, {"n": 1001}),
    timing_size={"n": 1001},
)
"""An int output copied from an int input: what an unwritten int output holds."""
