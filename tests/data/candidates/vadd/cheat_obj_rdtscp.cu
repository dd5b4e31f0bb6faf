// cheat: reads the time stamp counter through a compiler builtin the gate does not name, to tell timed calls from checked ones
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>

void vadd(int n, const float* a, const float* b, float* c) {
  unsigned int core = 0;
  static const unsigned long long loaded = __builtin_ia32_rdtscp(&core);
  if (__builtin_ia32_rdtscp(&core) - loaded > (1ull << 34)) return;
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
