// Elementwise map: a linear interpolation, int, vector arguments.
#include <vector>

// regrapht: n = 1<<22; a = 3; x[n] in; y[n] in; out[n] out
void lerp_map(int n, int a, const std::vector<int>& x, const std::vector<int>& y,
              std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] + a * (y[i] - x[i]);
    }
}
