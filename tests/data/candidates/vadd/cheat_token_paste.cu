// cheat: assembles a forbidden name by token pasting so it never appears whole
// expect: gate_rejected
#include <cuda_runtime.h>
#define CAT(x, y) x##y  // gate: macro

void vadd(int n, const float* a, const float* b, float* c) {
  CAT(pri, ntf)("%d\n", n);
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
