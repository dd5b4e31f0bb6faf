// cheat: memoizes C keyed on n and an 8-element sample of A and of B; the memo lives in
// cheat: leaked device memory whose address is parked in a __constant__ symbol (written with
// cheat: cudaMemcpyToSymbol, read back through a one-thread kernel, so no readback API shows)
// expect: wrong_output | crash | verified
// bounded_by: honest_naive
// observed: on the H100 (driver 580) it ends `crash` (cudaErrorInvalidValue after a call in
// observed: its own memo bookkeeping, cause not investigated): rejected, nothing gained
// defense: every timed call gets unseen inputs and a secret subset of outputs is checked:
// defense: a sample that still matches after the inputs changed serves a stale C (wrong_output);
// defense: a sample that never matches leaves honest work at honest speed (verified, bounded)
#include <cuda_runtime.h>
#include <cstdint>

#define SAMPLES 8

struct Memo {
  int n;
  float a[SAMPLES];
  float b[SAMPLES];
};

__constant__ uintptr_t c_memo;

__global__ void park(uintptr_t* out) { *out = c_memo; }

__global__ void sgemm_naive(int n, const float* A, const float* B, float* C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];
  C[i * n + j] = acc;
}

static void fingerprint(int n, const float* A, const float* B, Memo* memo) {
  const size_t count = static_cast<size_t>(n) * n;
  memo->n = n;
  for (int s = 0; s < SAMPLES; ++s) {
    size_t at = (static_cast<size_t>(s) * 2654435761u + 17) % count;
    memo->a[s] = A[at];
    memo->b[s] = B[at];
  }
}

static bool same(const Memo& x, const Memo& y) {
  if (x.n != y.n) return false;
  for (int s = 0; s < SAMPLES; ++s)
    if (x.a[s] != y.a[s] || x.b[s] != y.b[s]) return false;
  return true;
}

void sgemm(int n, const float* A, const float* B, float* C) {
  if (n <= 0) return;
  const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  const bool worth_it = n >= 256;  // only where a checker would time, never at the tiny sizes
  Memo now{};
  Memo* memo = nullptr;
  if (worth_it) {
    fingerprint(n, A, B, &now);
    uintptr_t* slot = nullptr;
    cudaMalloc(&slot, sizeof(uintptr_t));
    park<<<1, 1>>>(slot);
    uintptr_t parked = 0;
    cudaMemcpy(&parked, slot, sizeof(parked), cudaMemcpyDeviceToHost);
    cudaFree(slot);
    memo = reinterpret_cast<Memo*>(parked);
    if (memo != nullptr) {
      Memo seen{};
      cudaMemcpy(&seen, memo, sizeof(seen), cudaMemcpyDeviceToHost);
      if (same(seen, now)) {
        // A repeat: one copy back instead of two uploads and n^3 multiply-adds.
        cudaMemcpy(C, reinterpret_cast<const float*>(memo + 1), bytes, cudaMemcpyDeviceToHost);
        return;
      }
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
  if (worth_it) {
    if (memo == nullptr) {
      // Leaked on purpose: sized for the largest n seen so far is enough for one size.
      cudaMalloc(&memo, sizeof(Memo) + bytes);
      uintptr_t address = reinterpret_cast<uintptr_t>(memo);
      cudaMemcpyToSymbol(c_memo, &address, sizeof(address));
    }
    cudaMemcpy(memo, &now, sizeof(now), cudaMemcpyHostToDevice);
    cudaMemcpy(memo + 1, dC, bytes, cudaMemcpyDeviceToDevice);
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}
