// Integer map: a clamp into [lo, hi] with conditionals, int, pointer arguments.

// regrapht: n = 1<<24; lo = -100; hi = 250; x[n] in; y[n] out
void clamp_map(int n, int lo, int hi, const int* x, int* y) {
    for (int i = 0; i < n; ++i) {
        int v = x[i];
        y[i] = v < lo ? lo : (v > hi ? hi : v);
    }
}
