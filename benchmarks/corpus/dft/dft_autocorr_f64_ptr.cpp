// Biased autocorrelation estimate of a signal at every lag, double.

// regrapht: n = 16384; x[n] in; r[n] out
void autocorrelation(int n, const double* x, double* r) {
    for (int lag = 0; lag < n; ++lag) {
        double acc = 0.0;
        for (int i = 0; i + lag < n; ++i) {
            acc += x[i] * x[i + lag];
        }
        r[lag] = acc / (double)n;
    }
}
