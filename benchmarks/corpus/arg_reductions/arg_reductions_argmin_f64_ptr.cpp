// Arg-reduction: the index and value of the minimum (last on ties) of double values; pointer
// arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); idx[1] out; val[1] out
void argmin_f64(int n, const double* x, int* idx, double* val) {
    int arg = 0;
    double best = x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] <= best) {
            best = x[i];
            arg = i;
        }
    }
    idx[0] = arg;
    val[0] = best;
}
