// Geometry map: the distance of 2-D points (separate x and y arrays) to a fixed point, float,
// pointer arguments.
#include <cmath>

// regrapht: n = 1<<24; cx = 1.5; cy = -0.5; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10)
// regrapht: d[n] out
void dist2d_points(int n, float cx, float cy, const float* x, const float* y, float* d) {
    for (int i = 0; i < n; ++i) {
        float dx = x[i] - cx;
        float dy = y[i] - cy;
        d[i] = sqrtf(dx * dx + dy * dy);
    }
}
