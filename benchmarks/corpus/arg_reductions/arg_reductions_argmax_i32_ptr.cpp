// Arg-reduction: the index of the maximum (first on ties) of int values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ int(-100, 100)
int argmax_i32(int n, const int* x) {
    if (n <= 0) return -1;
    int best = x[0];
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        if (x[i] > best) {
            best = x[i];
            arg = i;
        }
    }
    return arg;
}
