// Scan: first-order IIR filter y[i] = a*y[i-1] + b*x[i] of double values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; a = 0.9; b = 0.1; x[n] in ~ uniform(-1, 1); y[n] out
void iir_f64(double a, double b, const std::vector<double>& x, std::vector<double>& y) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return;
    y[0] = b * x[0];
    for (int i = 1; i < n; ++i) {
        y[i] = a * y[i - 1] + b * x[i];
    }
}
