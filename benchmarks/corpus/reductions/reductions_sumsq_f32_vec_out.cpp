// Reduction: the sum of squares of float values, written to out[0]; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); out[1] out
void sumsq_f32(const std::vector<float>& x, std::vector<float>& out) {
    const int n = static_cast<int>(x.size());
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += x[i] * x[i];
    }
    out[0] = s;
}
