// Predicate reduction: the population variance, two passes (mean, then squared deviations) of float
// values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1)
float variance_f32(int n, const float* x) {
    if (n <= 0) return 0;
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    float m = s / (float)n;
    float q = 0.0f;
    for (int i = 0; i < n; ++i) {
        float d = x[i] - m;
        q += d * d;
    }
    return q / (float)n;
}
