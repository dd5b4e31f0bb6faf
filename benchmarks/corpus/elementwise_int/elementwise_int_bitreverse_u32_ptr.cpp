// Integer map: the bits in reverse order, one bit per step, unsigned int, pointer arguments.

// regrapht: n = 1<<22; x[n] in ~ int(0, 4000000000); y[n] out
void bitreverse_map(int n, const unsigned int* x, unsigned int* y) {
    for (int i = 0; i < n; ++i) {
        unsigned int v = x[i];
        unsigned int r = 0u;
        for (int b = 0; b < 32; ++b) {
            r = (r << 1) | (v & 1u);
            v >>= 1;
        }
        y[i] = r;
    }
}
