// Transcendental map: softplus log(1 + exp(x)), linear above 20, float, vector arguments, std::
// overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ uniform(-30, 30); y[n] out
void softplus_map(int n, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        y[i] = v > 20.0f ? v : std::log1p(std::exp(v));
    }
}
