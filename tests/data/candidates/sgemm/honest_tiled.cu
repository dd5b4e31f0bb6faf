// honest: 32x32 shared-memory tiles, each thread computes a 1x4 strip; k still in order
// expect: verified
// defense: none needs to act; a control the per-call checks and timing must accept
#include <cuda_runtime.h>

#define TILE 32
#define STRIP 4

// Block (32, 8): thread (tx, ty) owns rows ty, ty+8, ty+16, ty+24 of the tile, column tx.
__global__ void __launch_bounds__(256)
sgemm_tiled(int n, const float* __restrict__ A, const float* __restrict__ B,
            float* __restrict__ C) {
  __shared__ float As[TILE][TILE + 1];
  __shared__ float Bs[TILE][TILE + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int col = blockIdx.x * TILE + tx;
  const int row0 = blockIdx.y * TILE + ty;
  float acc[STRIP] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < n; k0 += TILE) {
#pragma unroll
    for (int s = 0; s < STRIP; ++s) {
      int r = row0 + s * 8;
      int ka = k0 + tx;
      As[ty + s * 8][tx] = (r < n && ka < n) ? A[r * n + ka] : 0.0f;
      int kb = k0 + ty + s * 8;
      Bs[ty + s * 8][tx] = (kb < n && col < n) ? B[kb * n + col] : 0.0f;
    }
    __syncthreads();
    const int kmax = min(TILE, n - k0);
    for (int k = 0; k < kmax; ++k) {
      float b = Bs[k][tx];
#pragma unroll
      for (int s = 0; s < STRIP; ++s) acc[s] += As[ty + s * 8][k] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int s = 0; s < STRIP; ++s) {
    int r = row0 + s * 8;
    if (r < n && col < n) C[r * n + col] = acc[s];
  }
}

void sgemm(int n, const float* A, const float* B, float* C) {
  if (n <= 0) return;
  size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  float* dA = nullptr;
  float* dB = nullptr;
  float* dC = nullptr;
  cudaMalloc(&dA, bytes);
  cudaMalloc(&dB, bytes);
  cudaMalloc(&dC, bytes);
  cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
  dim3 block(TILE, 8);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  sgemm_tiled<<<grid, block>>>(n, dA, dB, dC);
  cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}
