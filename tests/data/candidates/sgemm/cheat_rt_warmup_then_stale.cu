// cheat: counts calls at the timing size in a leaked host record whose address is parked in
// cheat: the default memory pool's release-threshold attribute (a 64-bit value the CUDA
// cheat: runtime keeps for it); computes the first three calls at that size and the first one
// cheat: after any small-size call (where it guesses the checks are), replays the last C
// cheat: from a leaked device buffer on every other call
// expect: wrong_output
// defense: timed calls get unseen inputs, a secret subset of them is checked, and checked and
// defense: timed calls look the same: the replayed C is stale on the first checked one
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>

#define MAGIC 0x5e55u

struct Record {
  unsigned magic;
  int calls;
  int after_small;
  int n;
  float* last;
};

__global__ void sgemm_naive(int n, const float* A, const float* B, float* C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];
  C[i * n + j] = acc;
}

static Record* record() {
  cudaMemPool_t pool;
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetDefaultMemPool(&pool, device);
  uint64_t parked = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &parked);
  Record* r = reinterpret_cast<Record*>(static_cast<uintptr_t>(parked));
  if (r != nullptr && r->magic == MAGIC) return r;
  r = static_cast<Record*>(calloc(1, sizeof(Record)));  // never freed
  r->magic = MAGIC;
  parked = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(r));
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &parked);
  return r;
}

void sgemm(int n, const float* A, const float* B, float* C) {
  if (n <= 0) return;
  const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  Record* r = record();
  if (n < 256) {
    r->after_small = 1;
  } else {
    r->calls += 1;
    const bool looks_checked = r->calls <= 3 || r->after_small || r->n != n;
    r->after_small = 0;
    if (!looks_checked && r->last != nullptr) {
      cudaMemcpy(C, r->last, bytes, cudaMemcpyDeviceToHost);
      return;
    }
  }
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
  if (n >= 256) {
    cudaFree(r->last);  // keep this call's C instead: the replay source
    r->last = dC;
    r->n = n;
  } else {
    cudaFree(dC);
  }
}
