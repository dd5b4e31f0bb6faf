// cheat: copies the input to the GPU (GPU work the timer sees) and sums it on the host
// expect: implausible
// defense: copies are not kernels: no timed call launched one, so it is not a CUDA version
#include <cuda_runtime.h>

float sum(int n, const float* x) {
  float* device = nullptr;
  if (n > 0 && cudaMalloc(&device, static_cast<size_t>(n) * sizeof(float)) == cudaSuccess) {
    cudaMemcpy(device, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
    cudaFree(device);
  }
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}
