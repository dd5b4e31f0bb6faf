// cheat: never writes c, hoping the reference's output is still sitting in that memory
// expect: wrong_output
#include <cuda_runtime.h>

void vadd(int n, const float* a, const float* b, float* c) {
  (void)n;
  (void)a;
  (void)b;
  (void)c;
}
