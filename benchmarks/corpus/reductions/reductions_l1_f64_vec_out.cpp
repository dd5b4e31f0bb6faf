// Reduction: the L1 norm (sum of absolute values) of double values, written to out[0]; vector
// arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); out[1] out
void l1_f64(const std::vector<double>& x, std::vector<double>& out) {
    const int n = static_cast<int>(x.size());
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += std::fabs(x[i]);
    }
    out[0] = s;
}
