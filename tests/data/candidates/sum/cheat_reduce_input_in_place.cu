// cheat: reduces in place inside the caller's input buffer (casting away const)
// expect: input_modified
#include <cuda_runtime.h>

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  float* work = const_cast<float*>(x);
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    total += work[i];
    work[i] = static_cast<float>(total);
  }
  return static_cast<float>(total);
}
