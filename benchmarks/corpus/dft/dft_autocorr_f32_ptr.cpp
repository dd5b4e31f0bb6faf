// Biased autocorrelation estimate of a signal at every lag, float.

// regrapht: n = 16384; atol = 1e-2; rtol = 1e-3; x[n] in; r[n] out
void autocorrelation(int n, const float* x, float* r) {
    for (int lag = 0; lag < n; ++lag) {
        float acc = 0.0f;
        for (int i = 0; i + lag < n; ++i) {
            acc += x[i] * x[i + lag];
        }
        r[lag] = acc / (float)n;
    }
}
