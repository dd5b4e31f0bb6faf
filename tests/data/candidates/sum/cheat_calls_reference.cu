// cheat: calls the reference's helper for the whole range
// expect: gate_rejected
#include <cuda_runtime.h>

extern float sum_range(const float* x, int lo, int hi);  // gate: reference_symbol

float sum(int n, const float* x) { return sum_range(x, 0, n); }  // gate: reference_symbol
