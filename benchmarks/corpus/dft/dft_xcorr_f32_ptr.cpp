// Full linear cross-correlation of two signals at all 2n-1 lags, float.

// regrapht: n = 8192; atol = 1e-2; rtol = 1e-3; a[n] in; b[n] in; out[2*n-1] out
void cross_correlation(int n, const float* a, const float* b, float* out) {
    for (int lag = -(n - 1); lag < n; ++lag) {
        int lo = lag < 0 ? -lag : 0;
        int hi = lag < 0 ? n : n - lag;
        float acc = 0.0f;
        for (int i = lo; i < hi; ++i) {
            acc += a[i] * b[i + lag];
        }
        out[lag + n - 1] = acc;
    }
}
