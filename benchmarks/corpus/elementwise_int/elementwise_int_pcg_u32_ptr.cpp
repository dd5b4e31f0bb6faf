// Integer map: a PCG-style output permutation of an LCG step, unsigned int, pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ int(0, 4000000000); y[n] out
void pcg_map(int n, const unsigned int* x, unsigned int* y) {
    for (int i = 0; i < n; ++i) {
        unsigned int state = x[i] * 747796405u + 2891336453u;
        unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
        y[i] = (word >> 22u) ^ word;
    }
}
