// cheat: accumulates into device memory it never clears (stale sums leak between calls)
// expect: wrong_output | nondeterministic
#include <cuda_runtime.h>

__global__ void reduce_atomic(int n, const float* x, float* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}

float sum(int n, const float* x) {
  float* dx = nullptr;
  float* dtotal = nullptr;
  cudaMalloc(&dtotal, sizeof(float));
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  reduce_atomic<<<(n + 255) / 256, 256>>>(n, dx, dtotal);
  float result = 0.0f;
  cudaMemcpy(&result, dtotal, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemset(dtotal, 0x7f, sizeof(float));
  cudaFree(dx);
  cudaFree(dtotal);
  return result;
}
