// Indexed map: a gather out[i] = x[idx[i]] through a permutation, float, pointer arguments.

// regrapht: n = 1<<22; idx[n] in ~ permutation; x[n] in ~ uniform(-100, 100); out[n] out
void gather_f32(int n, const int* idx, const float* x, float* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[idx[i]];
    }
}
