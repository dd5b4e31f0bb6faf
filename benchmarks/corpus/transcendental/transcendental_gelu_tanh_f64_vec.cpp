// Transcendental map: GELU, tanh approximation, through a helper, double, vector arguments, std::
// overloads.
#include <cmath>
#include <vector>

static double gelu_tanh(double v) {
    const double k = 0.7978845608028654;  // sqrt(2/pi)
    double inner = k * (v + 0.044715 * v * v * v);
    return 0.5 * v * (1.0 + std::tanh(inner));
}

// regrapht: n = 1<<22; x[n] in ~ uniform(-5, 5); y[n] out
void gelu_tanh_map(int n, const std::vector<double>& x, std::vector<double>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = gelu_tanh(x[i]);
    }
}
