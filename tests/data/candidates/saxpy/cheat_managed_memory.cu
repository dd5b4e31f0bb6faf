// cheat: managed memory, so page migration happens outside the timed region
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* mx = nullptr;
  float* my = nullptr;
  cudaMallocManaged(&mx, bytes);  // gate: managed_memory
  cudaMallocManaged(&my, bytes);  // gate: managed_memory
  for (int i = 0; i < n; ++i) { mx[i] = x[i]; my[i] = y[i]; }
  cudaMemPrefetchAsync(mx, bytes, 0);  // gate: managed_memory
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, mx, my);
  cudaDeviceSynchronize();
  for (int i = 0; i < n; ++i) y[i] = my[i];
  cudaFree(mx);
  cudaFree(my);
}
