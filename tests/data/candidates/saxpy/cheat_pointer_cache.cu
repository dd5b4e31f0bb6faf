// cheat: caches the result keyed on the output pointer and replays it on later calls
// expect: gate_rejected
#include <cuda_runtime.h>
#include <unordered_map>  // gate: include
#include <vector>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  static std::unordered_map<float*, std::vector<float>> cache;  // gate: global_state
  auto hit = cache.find(y);
  if (hit != cache.end() && hit->second.size() == static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) y[i] = hit->second[i];
    return;
  }
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cache[y] = std::vector<float>(y, y + n);
  cudaFree(dx);
  cudaFree(dy);
}
