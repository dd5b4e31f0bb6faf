// Elementwise map: the elementwise product, double, vector arguments.
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2); out[n] out
void mul_map(int n, const std::vector<double>& x, const std::vector<double>& y,
             std::vector<double>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] * y[i];
    }
}
