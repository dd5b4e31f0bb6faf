// Circular cross-correlation of two length-n signals at every lag, double.

// regrapht: n = 8192; a[n] in; b[n] in; out[n] out
void circular_correlation(int n, const double* a, const double* b, double* out) {
    for (int lag = 0; lag < n; ++lag) {
        double acc = 0.0;
        for (int i = 0; i < n; ++i) {
            acc += a[i] * b[(i + lag) % n];
        }
        out[lag] = acc;
    }
}
