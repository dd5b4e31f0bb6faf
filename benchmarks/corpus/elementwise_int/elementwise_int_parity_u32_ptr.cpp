// Integer map: the parity of a word by xor folding, unsigned int and unsigned char, pointer
// arguments.

// regrapht: n = 1<<25; x[n] in ~ int(0, 4000000000); y[n] out
void parity_map(int n, const unsigned int* x, unsigned char* y) {
    for (int i = 0; i < n; ++i) {
        unsigned int v = x[i];
        v ^= v >> 16;
        v ^= v >> 8;
        v ^= v >> 4;
        v ^= v >> 2;
        v ^= v >> 1;
        y[i] = (unsigned char)(v & 1u);
    }
}
