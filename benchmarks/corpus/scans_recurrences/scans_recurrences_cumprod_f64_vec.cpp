// Scan: cumulative product of values near 1 of double values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(0.9999, 1.0001); out[n] out
void cumprod_f64(const std::vector<double>& x, std::vector<double>& out) {
    const int n = static_cast<int>(x.size());
    double p = 1.0;
    for (int i = 0; i < n; ++i) {
        p *= x[i];
        out[i] = p;
    }
}
