// Reduction: the product of (1 + x) over values near zero of float values, written to out[0];
// pointer arguments.

// regrapht: n = 1<<24; atol = 1e-3; rtol = 1e-3; x[n] in ~ uniform(-0.001, 0.001); out[1] out
void prod1p_f32(int n, const float* x, float* out) {
    float s = 1.0f;
    for (int i = 0; i < n; ++i) {
        s *= 1.0f + x[i];
    }
    out[0] = s;
}
