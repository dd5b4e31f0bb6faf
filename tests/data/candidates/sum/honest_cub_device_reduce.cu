// honest: cub::DeviceReduce::Sum with its two-phase temporary storage
// expect: verified
#include <cuda_runtime.h>
#include <cub/cub.cuh>

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  float* dx = nullptr;
  float* dout = nullptr;
  cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float));
  cudaMalloc(&dout, sizeof(float));
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  void* temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(temp, temp_bytes, dx, dout, n);
  cudaMalloc(&temp, temp_bytes);
  cub::DeviceReduce::Sum(temp, temp_bytes, dx, dout, n);
  float result = 0.0f;
  cudaMemcpy(&result, dout, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(temp);
  cudaFree(dx);
  cudaFree(dout);
  return result;
}
