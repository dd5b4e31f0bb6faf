// Predicate reduction: the mean of int values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(-1000, 1000)
double mean_i32(const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return 0;
    long long s = 0LL;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    return (double)s / (double)n;
}
