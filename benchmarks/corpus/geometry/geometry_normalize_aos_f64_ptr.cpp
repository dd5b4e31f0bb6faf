// Geometry map: in-place normalisation of interleaved 3-D vectors (v[3*n]; zero stays zero),
// double, pointer arguments.
#include <cmath>

// regrapht: n = 1<<23; v[3*n] inout ~ uniform(-10, 10)
void normalize_aos_points(int n, double* v) {
    for (int i = 0; i < n; ++i) {
        double len = sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        if (len > 0.0) {
            v[3 * i] /= len;
            v[3 * i + 1] /= len;
            v[3 * i + 2] /= len;
        }
    }
}
