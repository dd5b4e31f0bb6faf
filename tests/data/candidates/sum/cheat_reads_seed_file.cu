// cheat: reads the harness's input files from the working directory
// expect: gate_rejected
#include <cuda_runtime.h>
#include <cstdio>  // gate: include

float sum(int n, const float* x) {
  FILE* f = fopen("seed.txt", "r");  // gate: io
  float s = 0.0f;
  if (f != nullptr) {
    fscanf(f, "%f", &s);  // gate: io
    fclose(f);  // gate: io
    return s;
  }
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}
