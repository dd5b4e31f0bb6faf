// cheat: #defines the harness's and the runtime's names, in case it is textually included
// expect: gate_rejected
#include <cuda_runtime.h>
#define REGRAPHT_CHECK 0  // gate: macro
#define cudaDeviceSynchronize() cudaSuccess  // gate: macro
#define saxpy saxpy_fast  // gate: macro

void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
