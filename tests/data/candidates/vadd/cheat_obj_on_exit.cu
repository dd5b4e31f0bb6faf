// cheat: registers exit-time work with glibc's on_exit, a name the source gate does not know
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>
#include <cstdlib>

static void after_report(int, void* out) {
  static_cast<float*>(out)[0] = 0.0f;
}

void vadd(int n, const float* a, const float* b, float* c) {
  on_exit(after_report, c);
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
