// cheat: accumulates into stream-ordered memory it never clears, relying on the pool handing
// cheat: back fresh pages (the default pool releases its memory at each synchronize)
// expect: wrong_output | nondeterministic
// defense: cudaMallocAsync is wrapped like cudaMalloc: in the small cases every allocation
// defense: starts filled with 0xFF, so an accumulator that was never cleared reads NaN
#include <cuda_runtime.h>

__global__ void reduce_atomic(int n, const float* x, float* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}

float sum(int n, const float* x) {
  float* dx = nullptr;
  float* dtotal = nullptr;
  cudaMallocAsync(&dtotal, sizeof(float), 0);
  cudaMallocAsync(&dx, static_cast<size_t>(n) * sizeof(float), 0);
  cudaMemcpy(dx, x, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  reduce_atomic<<<(n + 255) / 256, 256>>>(n, dx, dtotal);
  float result = 0.0f;
  cudaMemcpy(&result, dtotal, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFreeAsync(dx, 0);
  cudaFreeAsync(dtotal, 0);
  cudaDeviceSynchronize();
  return result;
}
