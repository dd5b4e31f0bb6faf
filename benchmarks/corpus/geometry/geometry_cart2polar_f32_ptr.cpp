// Geometry map: cartesian coordinates to polar (radius and atan2 angle), float, pointer arguments.
#include <cmath>

// regrapht: n = 1<<22; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10); r[n] out
// regrapht: theta[n] out
void cart2polar_points(int n, const float* x, const float* y, float* r, float* theta) {
    for (int i = 0; i < n; ++i) {
        r[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
        theta[i] = atan2f(y[i], x[i]);
    }
}
