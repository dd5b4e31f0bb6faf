// Two-pass sum: each block reduces a grid-strided slice in shared memory, the host adds
// the per-block partial sums it copies back into a buffer of its own.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void partial_sums(int n, const float* __restrict__ x, float* __restrict__ partial) {
  __shared__ float tile[256];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    s += x[i];
  }
  tile[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      tile[threadIdx.x] += tile[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = tile[0];
  }
}

float sum_f32(int n, const float* x) {
  if (n <= 0) {
    return 0.0f;
  }
  const int threads = 256;
  int blocks = (n + threads - 1) / threads;
  if (blocks > 1024) {
    blocks = 1024;
  }
  float* dx = nullptr;
  float* dpartial = nullptr;
  cudaMalloc(&dx, (size_t)n * sizeof(float));
  cudaMalloc(&dpartial, (size_t)blocks * sizeof(float));
  cudaMemcpy(dx, x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
  partial_sums<<<blocks, threads>>>(n, dx, dpartial);
  float* partial = (float*)malloc((size_t)blocks * sizeof(float));
  cudaMemcpy(partial, dpartial, (size_t)blocks * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0.0f;
  for (int b = 0; b < blocks; ++b) {
    s += partial[b];
  }
  free(partial);
  cudaFree(dpartial);
  cudaFree(dx);
  return s;
}
