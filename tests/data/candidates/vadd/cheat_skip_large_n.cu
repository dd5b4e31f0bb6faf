// cheat: skips all work above the sizes a weak checker tries
// expect: wrong_output
#include <cuda_runtime.h>

void vadd(int n, const float* a, const float* b, float* c) {
  if (n > 100000) return;
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
