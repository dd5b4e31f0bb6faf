// honest: warp-shuffle reduction, one atomicAdd per warp into a zeroed accumulator
// expect: verified
#include <cuda_runtime.h>

__inline__ __device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_atomic(int n, const float* __restrict__ x, float* __restrict__ total) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    s += x[i];
  }
  s = warp_sum(s);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, s);
}

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  float* dx = nullptr;
  float* dtotal = nullptr;
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float));
  cudaMalloc(&dtotal, sizeof(float));
  cudaMemset(dtotal, 0, sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (n + 255) / 256;
  if (blocks > 2048) blocks = 2048;
  reduce_atomic<<<blocks, 256>>>(n, dx, dtotal);
  float result = 0.0f;
  cudaMemcpy(&result, dtotal, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dtotal);
  return result;
}
