// Scan: first-order IIR filter y[i] = a*y[i-1] + b*x[i] of float values; pointer arguments.

// regrapht: n = 1<<24; a = 0.9; b = 0.1; atol = 1e-3; rtol = 1e-3; x[n] in ~ uniform(-1, 1)
// regrapht: y[n] out
void iir_f32(int n, float a, float b, const float* x, float* y) {
    if (n <= 0) return;
    y[0] = b * x[0];
    for (int i = 1; i < n; ++i) {
        y[i] = a * y[i - 1] + b * x[i];
    }
}
