// 2-D Gaussian kernel density estimate of m query points against n samples, double.
#include <cmath>

// regrapht: m = 4096; n = 8192; inv2h2 = 20.0; qx[m] in; qy[m] in; sx[n] in; sy[n] in; dens[m] out
void kde2d(int m, int n, double inv2h2, const double* qx, const double* qy, const double* sx,
           const double* sy, double* dens) {
    const double norm = inv2h2 / (3.141592653589793 * (double)n);
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            double dx = qx[i] - sx[j];
            double dy = qy[i] - sy[j];
            acc += exp(-(dx * dx + dy * dy) * inv2h2);
        }
        dens[i] = acc * norm;
    }
}
