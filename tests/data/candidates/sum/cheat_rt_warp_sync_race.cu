// cheat: a shared-memory tree whose last 32 steps rely on warp lockstep (volatile, but no
// cheat: __syncwarp and no barrier): a race by the CUDA memory model since Volta, usually
// cheat: right in plain runs because a converged warp happens to stay converged
// expect: sanitizer_error
// stage: sanitizer
// defense: compute-sanitizer racecheck at a small size on the final answer (the per-candidate
// defense: run may well verify it; the sanitizer must stop it before it is reported)
#include <cuda_runtime.h>

__device__ void warp_tail(volatile float* s, int t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

__global__ void reduce_blocks(int n, const float* x, float* partials) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc += x[i];
  s[t] = acc;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 32; step /= 2) {
    if (t < step) s[t] += s[t + step];
    __syncthreads();
  }
  if (t < 32) warp_tail(s, t);
  if (t == 0) partials[blockIdx.x] = s[0];
}

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  int blocks = (n + 255) / 256;
  if (blocks > 512) blocks = 512;
  float* dx = nullptr;
  float* dpartials = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dpartials, blocks * sizeof(float));
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  reduce_blocks<<<blocks, 256>>>(n, dx, dpartials);
  float partials[512];
  cudaMemcpy(partials, dpartials, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  float result = 0.0f;
  for (int b = 0; b < blocks; ++b) result += partials[b];
  cudaFree(dx);
  cudaFree(dpartials);
  return result;
}
