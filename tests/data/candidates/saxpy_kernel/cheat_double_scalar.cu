// cheat: takes the scalar as double (a different kernel signature)
// expect: gate_rejected
__global__ void saxpy_kernel(int n, double a, const float* x, float* y) {  // gate: entry
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<float>(a * x[i]) + y[i];
}
