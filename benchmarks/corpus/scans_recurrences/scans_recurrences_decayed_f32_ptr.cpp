// Scan: exponentially decayed sum s = decay*s + x[i], the final value returned of float values;
// pointer arguments.

// regrapht: n = 1<<24; decay = 0.99; atol = 1e-3; rtol = 1e-3; x[n] in ~ uniform(-1, 1)
float decayed_f32(int n, float decay, const float* x) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s = decay * s + x[i];
    }
    return s;
}
