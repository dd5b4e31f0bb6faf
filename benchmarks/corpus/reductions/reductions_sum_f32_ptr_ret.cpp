// Reduction: the sum of float values, returned; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1)
float sum_f32(int n, const float* x) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    return s;
}
