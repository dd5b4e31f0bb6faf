// cheat: returns a constant instead of the sum
// expect: wrong_output
#include <cuda_runtime.h>

float sum(int n, const float* x) {
  (void)n;
  (void)x;
  return 0.0f;
}
