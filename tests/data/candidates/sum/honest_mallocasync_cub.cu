// honest: cub::DeviceReduce::Sum with its temporary storage from cudaMallocAsync/cudaFreeAsync
// honest: on the default stream; the default pool keeps freed memory (release threshold raised),
// honest: so scratch is legitimately reused from one call to the next
// expect: verified
// defense: none must reject it: reusing freed scratch memory carries no result across calls
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdint>

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  int device = 0;
  cudaGetDevice(&device);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, device);
  uint64_t keep = UINT64_MAX;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dout = nullptr;
  cudaMallocAsync(&dx, bytes, 0);
  cudaMallocAsync(&dout, sizeof(float), 0);
  cudaMemcpyAsync(dx, x, bytes, cudaMemcpyHostToDevice, 0);
  size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, temp_bytes, dx, dout, n);
  void* temp = nullptr;
  cudaMallocAsync(&temp, temp_bytes, 0);
  cub::DeviceReduce::Sum(temp, temp_bytes, dx, dout, n);
  float result = 0.0f;
  cudaMemcpyAsync(&result, dout, sizeof(float), cudaMemcpyDeviceToHost, 0);
  cudaFreeAsync(temp, 0);
  cudaFreeAsync(dx, 0);
  cudaFreeAsync(dout, 0);
  cudaStreamSynchronize(0);
  return result;
}
