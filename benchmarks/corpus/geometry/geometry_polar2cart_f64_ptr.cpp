// Geometry map: polar coordinates (r, theta) to cartesian, double, pointer arguments.
#include <cmath>

// regrapht: n = 1<<22; r[n] in ~ uniform(0, 10); theta[n] in ~ uniform(-3.14159, 3.14159); x[n] out
// regrapht: y[n] out
void polar2cart_points(int n, const double* r, const double* theta, double* x, double* y) {
    for (int i = 0; i < n; ++i) {
        x[i] = r[i] * cos(theta[i]);
        y[i] = r[i] * sin(theta[i]);
    }
}
