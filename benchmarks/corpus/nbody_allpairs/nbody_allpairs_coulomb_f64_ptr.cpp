// Softened Coulomb potential at every charge from all the others, double.
#include <cmath>

// regrapht: n = 4096; eps = 0.0001; px[n] in; py[n] in; pz[n] in; q[n] in; phi[n] out
void coulomb_potential(int n, double eps, const double* px, const double* py, const double* pz,
                       const double* q, double* phi) {
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            double dx = px[i] - px[j];
            double dy = py[i] - py[j];
            double dz = pz[i] - pz[j];
            acc += q[j] / sqrt(dx * dx + dy * dy + dz * dz + eps);
        }
        phi[i] = q[i] * acc;
    }
}
