// Arg-reduction: the index of the maximum (first on ties) of float values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
int argmax_f32(int n, const float* x) {
    if (n <= 0) return -1;
    float best = x[0];
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        if (x[i] > best) {
            best = x[i];
            arg = i;
        }
    }
    return arg;
}
