// cheat: writes far outside its buffer (an illegal address: the context is lost)
// expect: crash
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == 0) y[(1ull << 36) + n] = 0.0f;
}
