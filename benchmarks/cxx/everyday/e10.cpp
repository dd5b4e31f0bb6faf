#include <vector>
#include <cstdint>
uint64_t checksum64(const std::vector<uint8_t>& data) {
    uint64_t h = 0;
    for (uint8_t b : data) h += b;
    return h;
}
