// Scan: exclusive prefix sum (out[0] = 0) of int values into long long; pointer arguments.

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000); out[n] out
void exclusive_i32(int n, const int* x, long long* out) {
    long long running = 0LL;
    for (int i = 0; i < n; ++i) {
        out[i] = running;
        running += x[i];
    }
}
