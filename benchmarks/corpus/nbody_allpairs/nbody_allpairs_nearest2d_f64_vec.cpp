// Brute-force distance from every 2-D point to its nearest other point, double (a lone point gets
// sqrt(DBL_MAX)).
#include <cfloat>
#include <cmath>
#include <vector>

// regrapht: n = 8192; px[n] in; py[n] in; nn[n] out
void nearest_distance(int n, const std::vector<double>& px, const std::vector<double>& py,
                      std::vector<double>& nn) {
    for (int i = 0; i < n; ++i) {
        double best = DBL_MAX;
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            double dx = px[i] - px[j];
            double dy = py[i] - py[j];
            double d2 = dx * dx + dy * dy;
            if (d2 < best) {
                best = d2;
            }
        }
        nn[i] = sqrt(best);
    }
}
