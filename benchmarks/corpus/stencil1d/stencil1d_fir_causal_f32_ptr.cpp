// 1-D FIR filter with taps from an input array h[taps], causal: y[i] = sum_k h[k] * x[i - k] for i
// >= taps - 1 (earlier y kept); float.

// regrapht: n = 1<<21; taps = 32; h[taps] in ~ uniform(-0.1, 0.1); x[n] in ~ uniform(-1, 1)
// regrapht: y[n] inout
void fir_causal(int n, int taps, const float* h, const float* x, float* y) {
    for (int i = taps - 1; i < n; ++i) {
        float acc = 0.0f;
        for (int k = 0; k < taps; ++k) {
            acc += h[k] * x[i - k];
        }
        y[i] = acc;
    }
}
