#include <cstddef>
#include <cstdint>
void xor_cipher(uint8_t* data, std::size_t len, uint8_t key) {
    for (std::size_t i = 0; i < len; ++i) data[i] ^= key;
}
