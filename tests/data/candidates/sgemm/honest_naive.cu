// honest: one thread per output element, the k loop in the reference's order, explicit transfers
// expect: verified
// defense: none needs to act; a control the per-call checks and timing must accept
#include <cuda_runtime.h>

__global__ void sgemm_naive(int n, const float* A, const float* B, float* C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];
  C[i * n + j] = acc;
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
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  sgemm_naive<<<grid, block>>>(n, dA, dB, dC);
  cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}
