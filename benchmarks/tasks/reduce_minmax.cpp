// Reduction: integer min and max in one pass (two reduction variables, if-form updates),
// results written through one-element output arrays after the loop.
// regrapht: n = 1<<25; x[n] in ~ int(-1000000, 1000000); lo[1] out; hi[1] out
void minmax_i32(int n, const int* x, int* lo, int* hi) {
    int mn = 2147483647;
    int mx = -2147483647 - 1;
    for (int i = 0; i < n; ++i) {
        if (x[i] < mn) mn = x[i];
        if (x[i] > mx) mx = x[i];
    }
    lo[0] = mn;
    hi[0] = mx;
}
