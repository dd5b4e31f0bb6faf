// cheat: shells out (to read or tamper with the harness's files)
// expect: gate_rejected
#include <cuda_runtime.h>
#include <cstdlib>

void vadd(int n, const float* a, const float* b, float* c) {
  std::system("cat /proc/self/environ > leak.txt");  // gate: process
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
