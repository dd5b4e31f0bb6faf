// Geometry map: unit vectors of 3-D vectors stored as separate x, y, z arrays (zero stays zero),
// float, pointer arguments.
#include <cmath>

// regrapht: n = 1<<23; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10)
// regrapht: z[n] in ~ uniform(-10, 10); ux[n] out; uy[n] out; uz[n] out
void normalize_soa_points(int n, const float* x, const float* y, const float* z, float* ux,
                          float* uy, float* uz) {
    for (int i = 0; i < n; ++i) {
        float len = sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
        float inv = len > 0.0f ? 1.0f / len : 0.0f;
        ux[i] = x[i] * inv;
        uy[i] = y[i] * inv;
        uz[i] = z[i] * inv;
    }
}
