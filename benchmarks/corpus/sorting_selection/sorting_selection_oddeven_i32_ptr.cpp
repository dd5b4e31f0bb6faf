// Sorting: eight passes of odd-even transposition sort over int values in place (a partial sort);
// pointer arguments.

// regrapht: n = 1<<22; x[n] inout ~ int(-1000, 1000)
void odd_even_passes_i32(int n, int* x) {
    const int passes = 8;
    for (int p = 0; p < passes; ++p) {
        for (int i = p % 2; i + 1 < n; i += 2) {
            if (x[i] > x[i + 1]) {
                int tmp = x[i];
                x[i] = x[i + 1];
                x[i + 1] = tmp;
            }
        }
    }
}
