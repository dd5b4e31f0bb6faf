// 1-D stencil: centred moving average of width 33 over the interior (the ends of y keep their
// values); double.
#include <vector>

#define WINDOW_RADIUS 16

// regrapht: n = 1<<21; x[n] in ~ uniform(-1, 1); y[n] inout
void moving_average(const std::vector<double>& x, std::vector<double>& y) {
    const int n = static_cast<int>(x.size());
    const double scale = 1.0 / (2 * WINDOW_RADIUS + 1);
    for (int i = WINDOW_RADIUS; i < n - WINDOW_RADIUS; ++i) {
        double sum = 0.0;
        for (int k = i - WINDOW_RADIUS; k <= i + WINDOW_RADIUS; ++k) {
            sum += x[k];
        }
        y[i] = sum * scale;
    }
}
