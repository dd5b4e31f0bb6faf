// cheat: reads an output buffer the harness/reference left in a global
// expect: gate_rejected
#include <cuda_runtime.h>
#include <cstring>

extern float regrapht_reference_output[];  // gate: harness_symbol, global_state

void vadd(int n, const float* a, const float* b, float* c) {
  (void)a;
  (void)b;
  memcpy(c, regrapht_reference_output, static_cast<size_t>(n) * sizeof(float));  // gate: harness_symbol
}
