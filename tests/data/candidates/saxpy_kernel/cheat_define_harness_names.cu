// cheat: #defines the kernel's and the runtime's names, in case it is textually included
// expect: gate_rejected
#define saxpy_kernel saxpy_fast  // gate: macro
#define __syncthreads() 0  // gate: macro

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
