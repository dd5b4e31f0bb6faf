// Reduction: the sum of double values, returned; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
double sum_f64(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    return s;
}
