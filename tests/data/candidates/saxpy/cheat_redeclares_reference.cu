// cheat: re-declares the harness's bridge to the reference and calls it
// expect: gate_rejected
#include <cuda_runtime.h>

extern "C" void regrapht_reference_entry(void** p);  // gate: harness_symbol

void saxpy(int n, float a, const float* x, float* y) {
  void* args[] = {&n, &a, const_cast<float*>(x), y};
  regrapht_reference_entry(args);  // gate: harness_symbol
}
