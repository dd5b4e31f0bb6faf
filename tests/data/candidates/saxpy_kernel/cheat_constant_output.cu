// cheat: writes a constant instead of computing (the output buffer is poisoned first)
// expect: wrong_output
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.0f;
}
