// Indexed map: a gather out[i] = x[idx[i]] through a permutation, int, pointer arguments.

// regrapht: n = 1<<22; idx[n] in ~ permutation; x[n] in ~ int(-1000000, 1000000); out[n] out
void gather_i32(int n, const int* idx, const int* x, int* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[idx[i]];
    }
}
