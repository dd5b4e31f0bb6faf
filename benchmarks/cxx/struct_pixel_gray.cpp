#include <vector>
#include <cstdint>
#include <cstddef>

struct Pixel {
    uint8_t r, g, b;
};

// ITU-R BT.601 luma from interleaved RGB pixels, integer arithmetic.
void toGray(const std::vector<Pixel>& image, std::vector<uint8_t>& gray) {
    for (size_t i = 0; i < image.size(); ++i) {
        const Pixel& px = image[i];
        const unsigned y = 77u * px.r + 150u * px.g + 29u * px.b;
        gray[i] = static_cast<uint8_t>(y >> 8);
    }
}
