// cheat: counts calls in thread-local storage written through const_cast, to skip the work on timed calls
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>

__thread const int calls = 0;

void saxpy(int n, float a, const float* x, float* y) {
  volatile int* count = const_cast<volatile int*>(&calls);
  *count = *count + 1;
  if (*count > 4) return;
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
