// Elementwise map: the elementwise product, float, vector arguments.
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2); out[n] out
void mul_map(int n, const std::vector<float>& x, const std::vector<float>& y,
             std::vector<float>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] * y[i];
    }
}
