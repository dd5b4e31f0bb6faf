// cheat: resets the device and changes its cache configuration under the harness
// expect: gate_rejected
#include <cuda_runtime.h>

void vadd(int n, const float* a, const float* b, float* c) {
  cudaDeviceReset();  // gate: device_control
  cudaDeviceSetCacheConfig(cudaFuncCachePreferL1);  // gate: device_control
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
