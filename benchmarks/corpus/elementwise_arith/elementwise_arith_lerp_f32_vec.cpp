// Elementwise map: a linear interpolation, float, vector arguments.
#include <vector>

// regrapht: n = 1<<22; a = 3; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2); out[n] out
void lerp_map(int n, float a, const std::vector<float>& x, const std::vector<float>& y,
              std::vector<float>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] + a * (y[i] - x[i]);
    }
}
