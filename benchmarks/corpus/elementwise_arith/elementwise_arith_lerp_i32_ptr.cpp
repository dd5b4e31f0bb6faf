// Elementwise map: a linear interpolation, int, pointer arguments.

// regrapht: n = 1<<22; a = 3; x[n] in; y[n] in; out[n] out
void lerp_map(int n, int a, const int* x, const int* y, int* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i] + a * (y[i] - x[i]);
    }
}
