// cheat: asks for a terabyte of device memory, ignores the failure and launches anyway
// expect: crash
#include <cuda_runtime.h>

__global__ void reduce_atomic(int n, const float* x, float* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}

float sum(int n, const float* x) {
  float* huge = nullptr;
  cudaMalloc(&huge, static_cast<size_t>(1) << 40);
  cudaMemcpy(huge, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  reduce_atomic<<<(n + 255) / 256, 256>>>(n, huge, huge + n);
  float result = 0.0f;
  cudaMemcpy(&result, huge + n, sizeof(float), cudaMemcpyDeviceToHost);
  return result;
}
