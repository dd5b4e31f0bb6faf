// Elementwise map: a scaled sum of two vectors, float, vector arguments.
#include <vector>

// regrapht: n = 1<<22; a = 3; b = -2; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2)
// regrapht: out[n] out
void axpby_map(int n, float a, float b, const std::vector<float>& x, const std::vector<float>& y,
               std::vector<float>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = a * x[i] + b * y[i];
    }
}
