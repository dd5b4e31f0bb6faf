// honest: grid-stride partial sums, shared-memory tree per block, second pass on the host
// expect: verified
#include <cuda_runtime.h>
#include <vector>

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

__global__ void partial_sums(int n, const float* __restrict__ x, float* __restrict__ out) {
  __shared__ float cache[kThreads];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    s += x[i];
  }
  cache[threadIdx.x] = s;
  __syncthreads();
#pragma unroll
  for (int step = kThreads / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) cache[threadIdx.x] += cache[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = cache[0];
}

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  const int blocks = n < kThreads * kBlocks ? (n + kThreads - 1) / kThreads : kBlocks;
  float* dx = nullptr;
  float* dpart = nullptr;
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float));
  cudaMalloc(&dpart, static_cast<size_t>(blocks) * sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  partial_sums<<<blocks, kThreads>>>(n, dx, dpart);
  std::vector<float> part(static_cast<size_t>(blocks));
  cudaMemcpy(part.data(), dpart, part.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dpart);
  double total = 0.0;
  for (float p : part) total += p;
  return static_cast<float>(total);
}
