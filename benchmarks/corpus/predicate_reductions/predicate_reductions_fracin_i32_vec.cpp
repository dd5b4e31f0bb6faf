// Predicate reduction: the fraction of elements in [lo, hi) of int values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; lo = -250; hi = 500; x[n] in ~ int(-1000, 1000)
double fracin_i32(int lo, int hi, const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return 0.0;
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] >= lo && x[i] < hi) ++c;
    }
    return (double)c / (double)n;
}
