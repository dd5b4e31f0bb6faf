// 1-D stencil: centred moving average of width 9 with the window clamped at the ends; double.
#include <algorithm>
#include <vector>

#define WINDOW_RADIUS 4

// regrapht: n = 1<<22; x[n] in ~ uniform(-1, 1); y[n] out
void moving_average_clamped(const std::vector<double>& x, std::vector<double>& y) {
    const int n = static_cast<int>(x.size());
    const double scale = 1.0 / (2 * WINDOW_RADIUS + 1);
    for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int k = -WINDOW_RADIUS; k <= WINDOW_RADIUS; ++k) {
            sum += x[std::min(std::max(i + k, 0), n - 1)];
        }
        y[i] = sum * scale;
    }
}
