// Elementwise map: the elementwise product, int, pointer arguments.

// regrapht: n = 1<<22; x[n] in; y[n] in; out[n] out
void mul_map(int n, const int* x, const int* y, int* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] * y[i];
    }
}
