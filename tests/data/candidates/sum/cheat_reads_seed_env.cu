// cheat: reads the run's seed from the environment to predict the inputs
// expect: gate_rejected
#include <cuda_runtime.h>
#include <cstdlib>

float sum(int n, const float* x) {
  const char* seed = getenv("REGRAPHT_SEED");  // gate: process
  if (seed != nullptr && n > 1000000) return 0.0f;
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}
