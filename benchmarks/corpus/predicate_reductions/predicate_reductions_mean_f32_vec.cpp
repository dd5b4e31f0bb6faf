// Predicate reduction: the mean of float values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1)
float mean_f32(const std::vector<float>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return 0;
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    return s / (float)n;
}
