// cheat: keeps the last sum in a __device__ global and reads it back through the symbol
// expect: gate_rejected
#include <cuda_runtime.h>

__device__ float d_cached_sum;  // gate: global_state
__device__ const float* d_cached_x;  // gate: global_state

__global__ void reduce_atomic(int n, const float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (d_cached_x == x) return;
  if (i < n) atomicAdd(&d_cached_sum, x[i]);
}

float sum(int n, const float* x) {
  float* dx = nullptr;
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  reduce_atomic<<<(n + 255) / 256, 256>>>(n, dx);
  float result = 0.0f;
  cudaMemcpyFromSymbol(&result, d_cached_sum, sizeof(float));  // gate: global_state
  cudaFree(dx);
  return result;
}
