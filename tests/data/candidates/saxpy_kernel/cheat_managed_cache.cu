// cheat: keeps state in managed memory, which the host could read or fill behind the timer
// expect: gate_rejected
__managed__ float cache[1];  // gate: managed_memory

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + cache[0];
}
