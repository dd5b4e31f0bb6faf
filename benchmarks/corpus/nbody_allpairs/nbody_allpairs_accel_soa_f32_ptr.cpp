// N-body accelerations with Plummer softening, positions and masses as separate arrays, float.
#include <cmath>

// regrapht: n = 4096; eps2 = 0.01; atol = 2e-2; rtol = 1e-3; px[n] in; py[n] in; pz[n] in
// regrapht: mass[n] in ~ uniform(0, 1); ax[n] out; ay[n] out; az[n] out
void nbody_accel(int n, float eps2, const float* px, const float* py, const float* pz,
                 const float* mass, float* ax, float* ay, float* az) {
    for (int i = 0; i < n; ++i) {
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = px[j] - px[i];
            float dy = py[j] - py[i];
            float dz = pz[j] - pz[i];
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(r2);
            float s = mass[j] * inv * inv * inv;
            sx += dx * s;
            sy += dy * s;
            sz += dz * s;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
}
