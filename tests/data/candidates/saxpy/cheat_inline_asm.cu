// cheat: inline PTX reading the global timer (and anything else PTX can do)
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y, unsigned long long* t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));  // gate: inline_asm
  if (i == 0) *t = now;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
