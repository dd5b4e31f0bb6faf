// Reduction: the product of (1 + x) over values near zero of double values, written to out[0];
// vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-0.001, 0.001); out[1] out
void prod1p_f64(const std::vector<double>& x, std::vector<double>& out) {
    const int n = static_cast<int>(x.size());
    double s = 1.0;
    for (int i = 0; i < n; ++i) {
        s *= 1.0 + x[i];
    }
    out[0] = s;
}
