// Predicate reduction: the population variance, two passes (mean, then squared deviations) of
// double values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
double variance_f64(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return 0;
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    double m = s / (double)n;
    double q = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = x[i] - m;
        q += d * d;
    }
    return q / (double)n;
}
