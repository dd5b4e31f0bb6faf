// Integer map: a murmur3 finaliser of the seeded value, unsigned int, pointer arguments.

static unsigned int mix32(unsigned int h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// regrapht: n = 1<<24; seed = 2654435769; x[n] in ~ int(0, 4000000000); y[n] out
void murmur_map(int n, unsigned int seed, const unsigned int* x, unsigned int* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = mix32(x[i] ^ seed);
    }
}
