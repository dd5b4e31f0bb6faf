// Integer map: the sum of the decimal digits of |x|, int, pointer arguments.

// regrapht: n = 1<<22; x[n] in ~ int(-1000000, 1000000); y[n] out
void digitsum_map(int n, const int* x, int* y) {
    for (int i = 0; i < n; ++i) {
        int v = x[i] < 0 ? -x[i] : x[i];
        int s = 0;
        while (v > 0) {
            s += v % 10;
            v /= 10;
        }
        y[i] = s;
    }
}
