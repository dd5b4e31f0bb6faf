// Reduction: the minimum of float values, written to out[0]; vector arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 10); out[1] out
void min_f32(const std::vector<float>& x, std::vector<float>& out) {
    const int n = static_cast<int>(x.size());
    float s = INFINITY;
    for (int i = 0; i < n; ++i) {
        s = fminf(s, x[i]);
    }
    out[0] = s;
}
