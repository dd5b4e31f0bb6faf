// A sample for the real-editor test: one loop ReGraphT turns into CUDA.
#include <cstddef>

// regrapht: n = 1<<20; x[n] in; y[n] inout
void saxpy(int n, float a, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
