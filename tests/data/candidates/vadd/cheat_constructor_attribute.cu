// cheat: runs code at load time, before the harness starts, through a constructor attribute
// expect: gate_rejected
#include <cuda_runtime.h>

__attribute__((constructor)) static void warm_up() {  // gate: attribute
  cudaFree(nullptr);
}

void vadd(int n, const float* a, const float* b, float* c) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
