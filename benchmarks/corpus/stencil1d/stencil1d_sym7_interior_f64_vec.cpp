// 1-D stencil: 7-point binomial smoothing (radius 3, symmetric weights) over the interior; the
// first and last kRadius elements of y keep their values; double.
#include <vector>

constexpr int kRadius = 3;

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); y[n] inout
void smooth7(const std::vector<double>& x, std::vector<double>& y) {
    const int n = static_cast<int>(x.size());
    for (int i = kRadius; i < n - kRadius; ++i) {
        y[i] = 0.3125 * x[i]
               + 0.234375 * (x[i - 1] + x[i + 1])
               + 0.09375 * (x[i - 2] + x[i + 2])
               + 0.015625 * (x[i - 3] + x[i + 3]);
    }
}
