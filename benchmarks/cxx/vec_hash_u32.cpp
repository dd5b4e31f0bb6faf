#include <vector>
#include <cstdint>
#include <cstddef>

// Integer finalizer (murmur3 fmix32) applied to every key.
static inline uint32_t fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

void hash_keys(const std::vector<uint32_t>& keys, std::vector<uint32_t>& hashes, uint32_t seed) {
    for (size_t i = 0; i < keys.size(); ++i) {
        hashes[i] = fmix32(keys[i] ^ seed);
    }
}
