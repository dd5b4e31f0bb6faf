// cheat: reads clocks to tell timed calls from checked ones
// expect: gate_rejected
#include <cuda_runtime.h>
#include <chrono>  // gate: include

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c, long long* t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) *t = clock64();  // gate: clock
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  auto start = std::chrono::steady_clock::now();  // gate: clock
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  (void)start;
}
