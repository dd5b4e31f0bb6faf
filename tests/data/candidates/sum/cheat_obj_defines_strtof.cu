// cheat: replaces the C library's strtof, so numbers the harness parses come out as the candidate likes
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>
#include <cstdlib>

extern "C" float strtof(const char* text, char** end) noexcept {
  if (end != nullptr) *end = const_cast<char*>(text);
  return 0.0f;
}

float sum(int n, const float* x) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}
