// Geometry map: a rotation of 2-D points by a fixed angle, double, vector arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; angle = 0.6; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10)
// regrapht: rx[n] out; ry[n] out
void rotate2d_points(int n, double angle, const std::vector<double>& x,
                     const std::vector<double>& y, std::vector<double>& rx,
                     std::vector<double>& ry) {
    const double c = std::cos(angle);
    const double s = std::sin(angle);
    for (int i = 0; i < n; ++i) {
        rx[i] = c * x[i] - s * y[i];
        ry[i] = s * x[i] + c * y[i];
    }
}
