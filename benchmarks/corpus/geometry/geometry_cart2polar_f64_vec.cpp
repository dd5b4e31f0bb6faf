// Geometry map: cartesian coordinates to polar (radius and atan2 angle), double, vector arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10); r[n] out
// regrapht: theta[n] out
void cart2polar_points(int n, const std::vector<double>& x, const std::vector<double>& y,
                       std::vector<double>& r, std::vector<double>& theta) {
    for (int i = 0; i < n; ++i) {
        r[i] = std::sqrt(x[i] * x[i] + y[i] * y[i]);
        theta[i] = std::atan2(y[i], x[i]);
    }
}
