// cheat: never returns (the process group is killed at the wall-clock limit)
// expect: timeout
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  while (n > 0) {
    __nanosleep(100);
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
