// honest: one device allocation per call carved into the three arrays (offsets kept in a
// honest: std::vector), float4 grid-stride loop over the aligned body, scalar tail
// expect: verified
// defense: none must reject it: per-call scratch, vector loads that stay inside their arrays
#include <cuda_runtime.h>
#include <algorithm>
#include <vector>

__global__ void vadd_grid_stride(int n, const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ c) {
  const int n4 = n / 4;
  const int stride = gridDim.x * blockDim.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n4; v += stride) {
    float4 x = a4[v];
    float4 y = b4[v];
    c4[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  const size_t count = static_cast<size_t>(n);
  const size_t padded = (count + 63) / 64 * 64;  // keeps every array 256-byte aligned
  std::vector<size_t> offsets = {0, padded, 2 * padded};
  float* block = nullptr;
  cudaMalloc(&block, 3 * padded * sizeof(float));
  float* da = block + offsets[0];
  float* db = block + offsets[1];
  float* dc = block + offsets[2];
  cudaMemcpy(da, a, count * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, count * sizeof(float), cudaMemcpyHostToDevice);
  int device = 0;
  int sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int blocks = std::max(1, std::min(static_cast<int>((count / 4 + 255) / 256), sms * 8));
  vadd_grid_stride<<<blocks, 256>>>(n, da, db, dc);
  cudaMemcpy(c, dc, count * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(block);
}
