// Geometry map: a rotation of 2-D points by a fixed angle, float, pointer arguments.
#include <cmath>

// regrapht: n = 1<<24; angle = 0.6; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10)
// regrapht: rx[n] out; ry[n] out
void rotate2d_points(int n, float angle, const float* x, const float* y, float* rx, float* ry) {
    const float c = cosf(angle);
    const float s = sinf(angle);
    for (int i = 0; i < n; ++i) {
        rx[i] = c * x[i] - s * y[i];
        ry[i] = s * x[i] + c * y[i];
    }
}
