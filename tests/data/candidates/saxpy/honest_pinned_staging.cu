// honest: pinned host staging buffer allocated per call, chunks planned in a std::vector and
// honest: copied through it with async copies on the default stream, grid-stride kernel
// expect: verified
// defense: none must reject it: per-call pinned and device scratch, nothing kept across calls
#include <cuda_runtime.h>
#include <algorithm>
#include <cstring>
#include <vector>

__global__ void saxpy_grid_stride(int n, float a, const float* __restrict__ x,
                                  float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = fmaf(a, x[i], y[i]);
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  const size_t count = static_cast<size_t>(n);
  const size_t chunk = std::min<size_t>(count, size_t{1} << 20);
  std::vector<size_t> starts;
  for (size_t start = 0; start < count; start += chunk) starts.push_back(start);
  float* staging = nullptr;
  cudaMallocHost(&staging, chunk * sizeof(float));
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, count * sizeof(float));
  cudaMalloc(&dy, count * sizeof(float));
  for (size_t start : starts) {
    const size_t len = std::min(chunk, count - start);
    std::memcpy(staging, x + start, len * sizeof(float));
    cudaMemcpyAsync(dx + start, staging, len * sizeof(float), cudaMemcpyHostToDevice, 0);
    cudaStreamSynchronize(0);
    std::memcpy(staging, y + start, len * sizeof(float));
    cudaMemcpyAsync(dy + start, staging, len * sizeof(float), cudaMemcpyHostToDevice, 0);
    cudaStreamSynchronize(0);
  }
  int blocks = static_cast<int>(std::min<size_t>((count + 255) / 256, 2048));
  saxpy_grid_stride<<<blocks, 256>>>(n, a, dx, dy);
  for (size_t start : starts) {
    const size_t len = std::min(chunk, count - start);
    cudaMemcpyAsync(staging, dy + start, len * sizeof(float), cudaMemcpyDeviceToHost, 0);
    cudaStreamSynchronize(0);
    std::memcpy(y + start, staging, len * sizeof(float));
  }
  cudaFree(dx);
  cudaFree(dy);
  cudaFreeHost(staging);
}
