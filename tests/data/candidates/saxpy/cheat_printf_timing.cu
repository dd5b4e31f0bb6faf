// cheat: prints a fake timing line for a log-scraping harness to pick up
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  printf("time: 0.001 ms\n");  // gate: io
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
