#include <vector>
#include <cstddef>
// image to grayscale, interleaved RGB bytes
void to_gray(const std::vector<unsigned char>& rgb, std::vector<unsigned char>& gray, int w, int h) {
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int i = y * w + x;
            gray[i] = static_cast<unsigned char>(0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2]);
        }
}
