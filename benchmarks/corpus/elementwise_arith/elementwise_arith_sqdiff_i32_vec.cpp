// Elementwise map: the squared difference, int, vector arguments.
#include <vector>

// regrapht: n = 1<<22; x[n] in; y[n] in; out[n] out
void sqdiff_map(int n, const std::vector<int>& x, const std::vector<int>& y,
                std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = (x[i] - y[i]) * (x[i] - y[i]);
    }
}
