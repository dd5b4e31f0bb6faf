// cheat: calls the reference's own helper by name instead of computing on the GPU
// expect: gate_rejected
#include <cuda_runtime.h>

float axpy_element(float a, float x, float y);  // gate: reference_symbol

void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = axpy_element(a, x[i], y[i]);  // gate: reference_symbol
}
