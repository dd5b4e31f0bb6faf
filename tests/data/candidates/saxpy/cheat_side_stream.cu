// cheat: launches on a non-blocking stream of its own and returns without synchronizing
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);  // gate: stream
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpyAsync(dx, x, bytes, cudaMemcpyHostToDevice, side);
  cudaMemcpyAsync(dy, y, bytes, cudaMemcpyHostToDevice, side);
  saxpy_kernel<<<(n + 255) / 256, 256, 0, side>>>(n, a, dx, dy);  // gate: stream
  cudaMemcpyAsync(y, dy, bytes, cudaMemcpyDeviceToHost, side);
}
