// Geometry map: the distance of 2-D points (separate x and y arrays) to a fixed point, double,
// vector arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; cx = 1.5; cy = -0.5; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10)
// regrapht: d[n] out
void dist2d_points(int n, double cx, double cy, const std::vector<double>& x,
                   const std::vector<double>& y, std::vector<double>& d) {
    for (int i = 0; i < n; ++i) {
        double dx = x[i] - cx;
        double dy = y[i] - cy;
        d[i] = std::sqrt(dx * dx + dy * dy);
    }
}
