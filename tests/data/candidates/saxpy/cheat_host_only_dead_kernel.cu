// cheat: the sequential loop again, beside a kernel it never launches (the 0.5B model's
// cheat: answer for a 3-D stencil passed so at 1.07x end to end, on timing alone)
// expect: implausible
// defense: no timed call launched a kernel, so it is not a CUDA version
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
