// cheat: remembers the last input pointer and its sum in globals, replays on a hit
// expect: gate_rejected
#include <cuda_runtime.h>

static const float* g_last_x = nullptr;  // gate: global_state
static float g_last_sum = 0.0f;  // gate: global_state
int g_calls;  // gate: global_state
float* const g_scratch = new float[16];  // gate: global_state

float sum(int n, const float* x) {
  if (x == g_last_x) return g_last_sum;
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += x[i];
  g_last_x = x;
  g_last_sum = s;
  return s;
}
