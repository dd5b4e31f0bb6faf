// Elementwise map: a scaled sum of two vectors, double, pointer arguments.

// regrapht: n = 1<<22; a = 3; b = -2; x[n] in ~ uniform(-2, 2); y[n] in ~ uniform(-2, 2)
// regrapht: out[n] out
void axpby_map(int n, double a, double b, const double* x, const double* y, double* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = a * x[i] + b * y[i];
    }
}
