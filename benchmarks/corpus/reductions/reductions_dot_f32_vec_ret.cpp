// Reduction: the dot product of two arrays of float values, returned; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1); y[n] in ~ uniform(0, 1)
float dot_f32(const std::vector<float>& x, const std::vector<float>& y) {
    const int n = static_cast<int>(x.size());
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += x[i] * y[i];
    }
    return s;
}
