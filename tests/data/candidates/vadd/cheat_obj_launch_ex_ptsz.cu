// cheat: launches through the extensible launch API's per-thread-stream variant, declared by hand, which no launch wrapper sees
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>

extern "C" cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                                void** args);

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 255) / 256);
  config.blockDim = dim3(256);
  void* args[] = {&n, &da, &db, &dc};
  cudaLaunchKernelExC_ptsz(&config, reinterpret_cast<const void*>(vadd_kernel), args);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
