// honest: __restrict__ pointers and read-only loads through __ldg
// expect: verified
__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * __ldg(&x[i]) + y[i];
}
