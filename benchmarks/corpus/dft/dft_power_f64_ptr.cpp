// One-sided power spectrum |X_k|^2 / n of a real signal by a naive DFT, double.
#include <cmath>

// regrapht: n = 4096; x[n] in; power[n/2+1] out
void power_spectrum(int n, const double* x, double* power) {
    for (int k = 0; k <= n / 2; ++k) {
        double sr = 0.0;
        double si = 0.0;
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            double angle = 6.283185307179586 * (double)r / (double)n;
            sr += x[j] * std::cos(angle);
            si -= x[j] * std::sin(angle);
        }
        power[k] = (sr * sr + si * si) / (double)n;
    }
}
