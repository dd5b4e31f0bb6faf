// cheat: returns garbage for tiny n, computes properly only from 64 elements up
// expect: wrong_output
#include <cuda_runtime.h>

__global__ void reduce_atomic(int n, const float* x, float* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}

float sum(int n, const float* x) {
  if (n < 64) return 12345.0f;
  float* dx = nullptr;
  float* dtotal = nullptr;
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float));
  cudaMalloc(&dtotal, sizeof(float));
  cudaMemset(dtotal, 0, sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  reduce_atomic<<<(n + 255) / 256, 256>>>(n, dx, dtotal);
  float result = 0.0f;
  cudaMemcpy(&result, dtotal, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dtotal);
  return result;
}
