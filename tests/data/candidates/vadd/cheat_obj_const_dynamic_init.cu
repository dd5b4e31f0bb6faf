// cheat: creates the CUDA context before main through a const global's initializer, so no timed call pays for it
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>

const cudaError_t primed = cudaFree(nullptr);

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0 || primed != cudaSuccess) return;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  vadd_kernel<<<(n + 255) / 256, 256>>>(n, da, db, dc);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
