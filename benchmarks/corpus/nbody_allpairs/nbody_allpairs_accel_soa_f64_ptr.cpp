// N-body accelerations with Plummer softening, positions and masses as separate arrays, double.
#include <cmath>

// regrapht: n = 4096; eps2 = 0.01; px[n] in; py[n] in; pz[n] in; mass[n] in ~ uniform(0, 1)
// regrapht: ax[n] out; ay[n] out; az[n] out
void nbody_accel(int n, double eps2, const double* px, const double* py, const double* pz,
                 const double* mass, double* ax, double* ay, double* az) {
    for (int i = 0; i < n; ++i) {
        double sx = 0.0, sy = 0.0, sz = 0.0;
        for (int j = 0; j < n; ++j) {
            double dx = px[j] - px[i];
            double dy = py[j] - py[i];
            double dz = pz[j] - pz[i];
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = 1.0 / sqrt(r2);
            double s = mass[j] * inv * inv * inv;
            sx += dx * s;
            sy += dy * s;
            sz += dz * s;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
}
