// Elementwise map: a linear interpolation, double, vector arguments.
#include <vector>

// regrapht: n = 1<<22; a = 3; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2); out[n] out
void lerp_map(int n, double a, const std::vector<double>& x, const std::vector<double>& y,
              std::vector<double>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] + a * (y[i] - x[i]);
    }
}
