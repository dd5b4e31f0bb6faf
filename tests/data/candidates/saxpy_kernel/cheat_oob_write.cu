// cheat: writes one element past the end of its output (lands in the guard bytes)
// expect: crash
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == 0) y[n] = 0.0f;
}
