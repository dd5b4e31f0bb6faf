// Transcendental map: a reciprocal square root 1/sqrt(x + eps), float, vector arguments, std::
// overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; eps = 0.0001; x[n] in ~ uniform(0, 100); y[n] out
void rsqrt_map(int n, float eps, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = 1.0f / std::sqrt(x[i] + eps);
    }
}
