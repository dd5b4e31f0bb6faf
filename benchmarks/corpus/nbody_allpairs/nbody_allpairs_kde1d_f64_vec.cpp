// 1-D Gaussian kernel density estimate of m query points against n samples, double.
#include <cmath>
#include <vector>

// regrapht: m = 4096; n = 4096; inv2h2 = 50.0; q[m] in; s[n] in; dens[m] out
void kde(int m, int n, double inv2h2, const std::vector<double>& q, const std::vector<double>& s,
         std::vector<double>& dens) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            double d = q[i] - s[j];
            acc += exp(-d * d * inv2h2);
        }
        dens[i] = acc / (double)n;
    }
}
