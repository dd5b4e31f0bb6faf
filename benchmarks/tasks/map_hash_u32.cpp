// Elementwise integer map: a murmur3-style 32-bit finaliser applied 4 times per element.
// Unsigned wrap-around is defined, and integer outputs are compared exactly.
#include <cstdint>

static uint32_t mix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// regrapht: n = 1<<24; seed = 12345; x[n] in ~ int(0, 2000000000); y[n] out
void hash_u32(int n, uint32_t seed, const uint32_t* x, uint32_t* y) {
    for (int i = 0; i < n; ++i) {
        uint32_t h = x[i] ^ seed;
        for (int r = 0; r < 4; ++r) {
            h = mix32(h + (uint32_t)r);
        }
        y[i] = h;
    }
}
