// Transcendental map: a Gaussian bump exp(-x^2/2), double, vector arguments, std:: overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-6, 6); y[n] out
void gauss_map(int n, const std::vector<double>& x, std::vector<double>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = std::exp(-0.5 * x[i] * x[i]);
    }
}
