// Indexed map: a scatter out[perm[i]] = x[i] through a permutation, double, pointer arguments.

// regrapht: n = 1<<22; perm[n] in ~ permutation; x[n] in ~ uniform(-100, 100); out[n] out
void scatter_f64(int n, const int* perm, const double* x, double* out) {
    for (int i = 0; i < n; ++i) {
        out[perm[i]] = x[i];
    }
}
