// Elementwise map: a scaled sum of two vectors, int, vector arguments.
#include <vector>

// regrapht: n = 1<<22; a = 3; b = -2; x[n] in; y[n] in; out[n] out
void axpby_map(int n, int a, int b, const std::vector<int>& x, const std::vector<int>& y,
               std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = a * x[i] + b * y[i];
    }
}
