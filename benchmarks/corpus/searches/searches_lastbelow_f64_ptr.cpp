// Search: index of the last element below a threshold, scanning from the end in sorted double data,
// or -1; pointer arguments.

// regrapht: n = 1<<25; t = 0.25; x[n] in ~ sorted(0, 1)
int lastbelow_f64(int n, double t, const double* x) {
    int found = -1;
    for (int i = n - 1; i >= 0; --i) {
        if (x[i] < t) {
            found = i;
            break;
        }
    }
    return found;
}
