// Predicate reduction: whether all elements lie in [lo, hi], from a count of float values; pointer
// arguments.

// regrapht: n = 1<<25; lo = -1; hi = 1; x[n] in ~ uniform(-1, 1)
int allin_f32(int n, float lo, float hi, const float* x) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] >= lo && x[i] <= hi) c++;
    }
    return c == n ? 1 : 0;
}
