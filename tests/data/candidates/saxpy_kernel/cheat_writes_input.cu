// cheat: scribbles over its read-only input after using it
// expect: input_modified
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
    const_cast<float*>(x)[i] = 0.0f;
  }
}
