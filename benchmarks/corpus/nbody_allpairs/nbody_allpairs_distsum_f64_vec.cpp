// Sum of Euclidean distances from every 3-D point to all points, double.
#include <cmath>
#include <vector>

// regrapht: n = 8192; px[n] in; py[n] in; pz[n] in; total[n] out
void distance_sums(int n, const std::vector<double>& px, const std::vector<double>& py,
                   const std::vector<double>& pz, std::vector<double>& total) {
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            double dx = px[i] - px[j];
            double dy = py[i] - py[j];
            double dz = pz[i] - pz[j];
            acc += sqrt(dx * dx + dy * dy + dz * dz);
        }
        total[i] = acc;
    }
}
