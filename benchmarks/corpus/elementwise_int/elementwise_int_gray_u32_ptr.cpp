// Integer map: the Gray code x ^ (x >> 1), unsigned int, pointer arguments.

// regrapht: n = 1<<25; x[n] in ~ int(0, 4000000000); y[n] out
void gray_map(int n, const unsigned int* x, unsigned int* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = x[i] ^ (x[i] >> 1);
    }
}
