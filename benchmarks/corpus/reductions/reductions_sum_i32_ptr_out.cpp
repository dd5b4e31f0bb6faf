// Reduction: the sum of int values, accumulated in long long, written to out[0]; pointer arguments.

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000); out[1] out
void sum_i32(int n, const int* x, long long* out) {
    long long s = 0LL;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    out[0] = s;
}
