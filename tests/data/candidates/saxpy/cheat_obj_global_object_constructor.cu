// cheat: a const global object whose constructor allocates pinned staging memory before main, off the clock
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>

struct Staging {
  float* host;
  float* device;
  Staging() : host(nullptr), device(nullptr) {
    cudaMallocHost(&host, sizeof(float) << 23);
    cudaMalloc(&device, sizeof(float) << 24);
  }
};

const Staging staging;

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = staging.device;
  float* dy = staging.device + n;
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
}
