// Scan: inclusive prefix sum of int values into long long; pointer arguments.

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000); out[n] out
void inclusive_i32(int n, const int* x, long long* out) {
    long long running = 0LL;
    for (int i = 0; i < n; ++i) {
        running += x[i];
        out[i] = running;
    }
}
