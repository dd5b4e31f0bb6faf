// Integer map: the number of set bits, clearing the lowest set bit each step, unsigned int and
// unsigned char, pointer arguments.

// regrapht: n = 1<<22; x[n] in ~ int(0, 4000000000); y[n] out
void popcount_kernighan_map(int n, const unsigned int* x, unsigned char* y) {
    for (int i = 0; i < n; ++i) {
        unsigned char count = 0;
        for (unsigned int v = x[i]; v != 0u; v &= v - 1u) {
            ++count;
        }
        y[i] = count;
    }
}
