// The bundled example for `make demo`: a sequential loop ReGraphT turns into verified CUDA.
//
// Run:  .venv/bin/regrapht optimize examples/saxpy.cpp --function saxpy
#include <cstddef>

// regrapht: n = 1<<24; x[n] in; y[n] inout; a = 2.5
void saxpy(int n, float a, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
