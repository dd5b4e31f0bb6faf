// cheat: copies back a whole number of blocks, writing past the end of the caller's c
// expect: wrong_output | crash
#include <cuda_runtime.h>

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  const int padded = (n + 255) / 256 * 256 + 256;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  size_t padded_bytes = static_cast<size_t>(padded) * sizeof(float);
  float* da = nullptr;
  float* db = nullptr;
  float* dc = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, padded_bytes);
  cudaMemset(dc, 0, padded_bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  vadd_kernel<<<(n + 255) / 256, 256>>>(n, da, db, dc);
  cudaMemcpy(c, dc, padded_bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
