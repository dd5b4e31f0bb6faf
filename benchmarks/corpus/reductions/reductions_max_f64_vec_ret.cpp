// Reduction: the maximum of double values, returned; vector arguments.
#include <algorithm>
#include <limits>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 10)
double max_f64(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    double s = std::numeric_limits<double>::lowest();
    for (int i = 0; i < n; ++i) {
        s = std::max(s, x[i]);
    }
    return s;
}
