// 1-D stencil: 3-point binomial smoothing (radius 1, symmetric weights) over the interior; the
// first and last kRadius elements of y keep their values; double.
#include <vector>

constexpr int kRadius = 1;

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); y[n] inout
void smooth3(const std::vector<double>& x, std::vector<double>& y) {
    const int n = static_cast<int>(x.size());
    for (int i = kRadius; i < n - kRadius; ++i) {
        y[i] = 0.5 * x[i]
               + 0.25 * (x[i - 1] + x[i + 1]);
    }
}
