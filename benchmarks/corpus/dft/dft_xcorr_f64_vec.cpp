// Full linear cross-correlation of two signals at all 2n-1 lags, double.
#include <vector>

// regrapht: n = 8192; a[n] in; b[n] in; out[2*n-1] out
void cross_correlation(int n, const std::vector<double>& a, const std::vector<double>& b,
                       std::vector<double>& out) {
    for (int lag = -(n - 1); lag < n; ++lag) {
        int lo = lag < 0 ? -lag : 0;
        int hi = lag < 0 ? n : n - lag;
        double acc = 0.0;
        for (int i = lo; i < hi; ++i) {
            acc += a[i] * b[i + lag];
        }
        out[lag + n - 1] = acc;
    }
}
