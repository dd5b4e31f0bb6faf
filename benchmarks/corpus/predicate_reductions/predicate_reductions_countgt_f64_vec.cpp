// Predicate reduction: the number of elements above a threshold of double values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; t = 0.5; x[n] in ~ uniform(-1, 1)
long long countgt_f64(double t, const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    long long c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) c++;
    }
    return c;
}
