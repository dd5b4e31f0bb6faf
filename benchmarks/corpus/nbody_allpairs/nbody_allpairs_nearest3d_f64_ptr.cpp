// Brute-force distance from every 3-D point to its nearest other point, double (a lone point gets
// sqrt(DBL_MAX)).
#include <cfloat>
#include <cmath>

// regrapht: n = 8192; px[n] in; py[n] in; pz[n] in; nn[n] out
void nearest_distance(int n, const double* px, const double* py, const double* pz, double* nn) {
    for (int i = 0; i < n; ++i) {
        double best = DBL_MAX;
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            double dx = px[i] - px[j];
            double dy = py[i] - py[j];
            double dz = pz[i] - pz[j];
            double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < best) {
                best = d2;
            }
        }
        nn[i] = sqrt(best);
    }
}
