// cheat: counts its calls at the timing size in the max-dynamic-shared-memory attribute of an
// cheat: idle kernel (state no variable holds); does the work on the first eight calls there
// cheat: (more than a separate checking process makes at one size) and on every 10th after, the
// cheat: ones it guesses a timing run re-checks, and returns at once otherwise
// expect: wrong_output
// defense: checked and timed calls are indistinguishable and every timed call's output may be
// defense: checked (a secret subset): a skipped call leaves y as it came in
#include <cuda_runtime.h>

#define BASE 200000  // above the 48 KiB default, below the 227 KiB opt-in limit

__global__ void counter() {}

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static int bump() {
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(counter));
  int calls = attributes.maxDynamicSharedSizeBytes - BASE;
  if (calls < 0) calls = 0;  // never set: still the 48 KiB default
  calls += 1;
  cudaFuncSetAttribute(reinterpret_cast<const void*>(counter),
                       cudaFuncAttributeMaxDynamicSharedMemorySize, BASE + calls);
  return calls;
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  if (n >= (1 << 20)) {
    int calls = bump();
    if (calls > 8 && calls % 10 != 0) return;
  }
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
