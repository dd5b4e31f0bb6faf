// 1-D wide stencil: a 33-tap FIR filter with coefficients from an input array
// (y[i] = sum_k w[k] * x[i + k]; x holds n + 32 samples).
#define TAPS 33

// regrapht: n = 1<<22; w[33] in ~ uniform(0, 0.06); x[n+32] in; y[n] out
void fir33(int n, const float* w, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; ++k) {
            acc += w[k] * x[i + k];
        }
        y[i] = acc;
    }
}
