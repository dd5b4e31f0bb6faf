// A kernel to optimize in kernel->kernel mode: the candidate replaces `saxpy_kernel` under
// the launch below, and is checked against this kernel on the GPU.
// regrapht: n = 1<<24; a = 2.5; x[n] in; y[n] inout
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
