// Indexed map: a conditional select out[i] = mask[i] ? a[i] : b[i], double, pointer arguments.

// regrapht: n = 1<<22; mask[n] in ~ int(0, 1); a[n] in ~ uniform(-100, 100)
// regrapht: b[n] in ~ uniform(-100, 100); out[n] out
void select_f64(int n, const unsigned char* mask, const double* a, const double* b, double* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = mask[i] ? a[i] : b[i];
    }
}
