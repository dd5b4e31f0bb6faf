// cheat: hides the work on the per-thread default stream (no stream created by name)
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256, 0, (cudaStream_t)2>>>(n, a, dx, dy);  // gate: stream
  cudaMemcpyAsync(y, dy, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread);  // gate: stream
}
