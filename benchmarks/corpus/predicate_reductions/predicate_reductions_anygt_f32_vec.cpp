// Predicate reduction: whether any element is above a threshold, from a count of float values;
// vector arguments.
#include <vector>

// regrapht: n = 1<<25; t = 0.5; x[n] in ~ uniform(-1, 1)
bool anygt_f32(float t, const std::vector<float>& x) {
    const int n = static_cast<int>(x.size());
    int c = 0;
    for (int i = 0; i < n; ++i) {
        c += x[i] > t ? 1 : 0;
    }
    return c > 0;
}
