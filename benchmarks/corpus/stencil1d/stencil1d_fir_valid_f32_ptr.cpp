// 1-D FIR filter with taps from an input array h[taps], 'valid' correlation: y[i] = sum_k h[k] *
// x[i + k], x holding n + taps - 1 samples; float.

// regrapht: n = 1<<21; taps = 32; h[taps] in ~ uniform(-0.1, 0.1); x[n+taps-1] in ~ uniform(-1, 1)
// regrapht: y[n] out
void fir_valid(int n, int taps, const float* h, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = 0; k < taps; ++k) {
            acc += h[k] * x[i + k];
        }
        y[i] = acc;
    }
}
