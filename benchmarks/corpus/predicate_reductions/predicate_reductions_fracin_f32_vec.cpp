// Predicate reduction: the fraction of elements in [lo, hi) of float values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; lo = -0.25; hi = 0.5; x[n] in ~ uniform(-1, 1)
double fracin_f32(float lo, float hi, const std::vector<float>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return 0.0;
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] >= lo && x[i] < hi) ++c;
    }
    return (double)c / (double)n;
}
