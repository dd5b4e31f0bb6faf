// cheat: lower precision: computes in half and loses digits beyond the tolerance
// expect: wrong_output
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void saxpy_half(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half r = __hfma(__float2half(a), __float2half(x[i]), __float2half(y[i]));
    y[i] = __half2float(r);
  }
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_half<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
