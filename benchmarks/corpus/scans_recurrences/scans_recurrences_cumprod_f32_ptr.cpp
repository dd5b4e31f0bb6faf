// Scan: cumulative product of values near 1 of float values; pointer arguments.

// regrapht: n = 1<<24; atol = 1e-3; rtol = 1e-3; x[n] in ~ uniform(0.9999, 1.0001); out[n] out
void cumprod_f32(int n, const float* x, float* out) {
    float p = 1.0f;
    for (int i = 0; i < n; ++i) {
        p *= x[i];
        out[i] = p;
    }
}
