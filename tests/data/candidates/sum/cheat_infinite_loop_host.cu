// cheat: spins forever on the host (a volatile flag, so the loop cannot be optimized away)
// expect: timeout
#include <cuda_runtime.h>

float sum(int n, const float* x) {
  volatile int spinning = 1;
  while (spinning) {
  }
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}
