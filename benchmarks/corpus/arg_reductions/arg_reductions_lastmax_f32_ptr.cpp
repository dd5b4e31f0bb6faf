// Arg-reduction: the last index of the maximum of float values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
int lastmax_f32(int n, const float* x) {
    if (n <= 0) return -1;
    float best = x[0];
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        if (x[i] >= best) {
            best = x[i];
            arg = i;
        }
    }
    return arg;
}
