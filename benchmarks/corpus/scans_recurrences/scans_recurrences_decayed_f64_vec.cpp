// Scan: exponentially decayed sum s = decay*s + x[i], the final value returned of double values;
// vector arguments.
#include <vector>

// regrapht: n = 1<<24; decay = 0.99; x[n] in ~ uniform(-1, 1)
double decayed_f64(double decay, const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s = decay * s + x[i];
    }
    return s;
}
