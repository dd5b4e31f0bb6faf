// Geometry map: the distance of interleaved 3-D points (xyz[3*n]) to a fixed point, double, pointer
// arguments.
#include <cmath>

// regrapht: n = 1<<24; cx = 1.5; cy = -0.5; cz = 2.25; xyz[3*n] in ~ uniform(-10, 10); d[n] out
void dist3d_points(int n, double cx, double cy, double cz, const double* xyz, double* d) {
    for (int i = 0; i < n; ++i) {
        double dx = xyz[3 * i] - cx;
        double dy = xyz[3 * i + 1] - cy;
        double dz = xyz[3 * i + 2] - cz;
        d[i] = sqrt(dx * dx + dy * dy + dz * dz);
    }
}
