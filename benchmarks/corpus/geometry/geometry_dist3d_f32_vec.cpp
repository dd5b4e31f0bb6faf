// Geometry map: the distance of interleaved 3-D points (xyz[3*n]) to a fixed point, float, vector
// arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; cx = 1.5; cy = -0.5; cz = 2.25; xyz[3*n] in ~ uniform(-10, 10); d[n] out
void dist3d_points(int n, float cx, float cy, float cz, const std::vector<float>& xyz,
                   std::vector<float>& d) {
    for (int i = 0; i < n; ++i) {
        float dx = xyz[3 * i] - cx;
        float dy = xyz[3 * i + 1] - cy;
        float dz = xyz[3 * i + 2] - cz;
        d[i] = std::sqrt(dx * dx + dy * dy + dz * dz);
    }
}
