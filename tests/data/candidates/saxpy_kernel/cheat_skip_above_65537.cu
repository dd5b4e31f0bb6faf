// cheat: skips work above the largest size a weak checker uses (the timing size is checked too)
// expect: wrong_output
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < 65537) y[i] = a * x[i] + y[i];
}
