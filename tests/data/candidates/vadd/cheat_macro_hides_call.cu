// cheat: hides forbidden calls inside macro bodies
// expect: gate_rejected
#include <cuda_runtime.h>
#define LOG(msg) fprintf(stderr, msg)  // gate: io
#define LEAVE() exit(0)  // gate: process

void vadd(int n, const float* a, const float* b, float* c) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  LOG("done");
  if (n < 0) LEAVE();
}
