// Predicate reduction: the number of elements above a threshold of float values; pointer arguments.

// regrapht: n = 1<<24; t = 0.5; x[n] in ~ uniform(-1, 1)
long long countgt_f32(int n, float t, const float* x) {
    long long c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) c++;
    }
    return c;
}
