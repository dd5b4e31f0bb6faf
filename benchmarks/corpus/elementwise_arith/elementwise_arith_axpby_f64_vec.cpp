// Elementwise map: a scaled sum of two vectors, double, vector arguments.
#include <vector>

// regrapht: n = 1<<22; a = 3; b = -2; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2)
// regrapht: out[n] out
void axpby_map(int n, double a, double b, const std::vector<double>& x,
               const std::vector<double>& y, std::vector<double>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = a * x[i] + b * y[i];
    }
}
