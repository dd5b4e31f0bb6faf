#include <vector>
#include <cstddef>
#include <cstdint>
uint32_t checksum(const std::vector<uint8_t>& bytes) {
    uint32_t s = 0;
    for (uint8_t b : bytes) s += b;
    return s;
}
