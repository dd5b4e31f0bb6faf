// Reduction: float sum into a float accumulator. A parallel sum reorders the additions,
// so the output gets the inferred accumulation tolerance (atol = rtol = 1e-3); the inputs
// are non-negative so the sum never cancels to near zero.
// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1)
float sum_f32(int n, const float* x) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    return s;
}
