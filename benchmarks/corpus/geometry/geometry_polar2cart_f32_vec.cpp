// Geometry map: polar coordinates (r, theta) to cartesian, float, vector arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<22; r[n] in ~ uniform(0, 10); theta[n] in ~ uniform(-3.14159, 3.14159); x[n] out
// regrapht: y[n] out
void polar2cart_points(int n, const std::vector<float>& r, const std::vector<float>& theta,
                       std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < n; ++i) {
        x[i] = r[i] * std::cos(theta[i]);
        y[i] = r[i] * std::sin(theta[i]);
    }
}
