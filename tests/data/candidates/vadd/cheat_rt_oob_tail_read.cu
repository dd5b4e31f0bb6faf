// cheat: float4 loads whose last vector reads up to three floats past the end of its own device
// cheat: buffers when n is not a multiple of 4 (only the lanes below n are stored, so outputs are
// cheat: right, and the stray bytes lie in the allocator's rounding, so nothing faults); at the
// cheat: timing size n is a multiple of 4 and the read never happens
// expect: sanitizer_error
// stage: sanitizer
// defense: compute-sanitizer memcheck at a small size on the final answer (n = 7: a 16-byte read
// defense: 12 bytes after the 28-byte allocation); plain runs verify it
#include <cuda_runtime.h>

__global__ void vadd_vec4(int n, const float* __restrict__ a, const float* __restrict__ b,
                          float* __restrict__ c) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = 4 * v;
  if (first >= n) return;
  const float4 x = reinterpret_cast<const float4*>(a)[v];  // whole vector, even at the tail
  const float4 y = reinterpret_cast<const float4*>(b)[v];
  const float sums[4] = {x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w};
  for (int k = 0; k < 4 && first + k < n; ++k) c[first + k] = sums[k];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* da = nullptr;
  float* db = nullptr;
  float* dc = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  const int vectors = (n + 3) / 4;
  vadd_vec4<<<(vectors + 255) / 256, 256>>>(n, da, db, dc);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
