// Geometry map: cross products of interleaved 3-D vectors, double, vector arguments.
#include <vector>

// regrapht: n = 1<<23; a[3*n] in ~ uniform(-10, 10); b[3*n] in ~ uniform(-10, 10); c[3*n] out
void cross_aos_points(int n, const std::vector<double>& a, const std::vector<double>& b,
                      std::vector<double>& c) {
    for (int i = 0; i < n; ++i) {
        c[3 * i] = a[3 * i + 1] * b[3 * i + 2] - a[3 * i + 2] * b[3 * i + 1];
        c[3 * i + 1] = a[3 * i + 2] * b[3 * i] - a[3 * i] * b[3 * i + 2];
        c[3 * i + 2] = a[3 * i] * b[3 * i + 1] - a[3 * i + 1] * b[3 * i];
    }
}
