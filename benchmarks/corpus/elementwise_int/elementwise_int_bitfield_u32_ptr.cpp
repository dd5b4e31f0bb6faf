// Integer map: a bit field (x >> shift) & mask, unsigned int, pointer arguments.

// regrapht: n = 1<<25; shift = 7; mask = 1023; x[n] in ~ int(0, 4000000000); y[n] out
void bitfield_map(int n, unsigned int shift, unsigned int mask, const unsigned int* x,
                  unsigned int* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = (x[i] >> shift) & mask;
    }
}
