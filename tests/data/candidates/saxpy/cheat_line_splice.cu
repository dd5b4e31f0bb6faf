// cheat: hides a call behind a backslash-newline splice (the compiler joins the lines)
// expect: gate_rejected
#include <cuda_runtime.h>

void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  /* gate: io */ pri\
ntf("time: 0.001 ms\n");
}
