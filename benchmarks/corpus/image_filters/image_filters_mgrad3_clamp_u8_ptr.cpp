// Image filter: 3x3 morphological gradient (dilation minus erosion), clamping coordinates at the
// borders; single-channel unsigned char image.
#include <algorithm>

// regrapht: width = 2048; height = 2048
// regrapht: src[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: dst[height*width] out
void morph_gradient(int width, int height, const unsigned char* src, unsigned char* dst) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            unsigned char lo = 255, hi = 0;
            for (int dy = -1; dy <= 1; ++dy) {
                const int yy = std::min(std::max(y + dy, 0), height - 1);
                for (int dx = -1; dx <= 1; ++dx) {
                    const int xx = std::min(std::max(x + dx, 0), width - 1);
                    const unsigned char v = src[yy * width + xx];
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            }
            dst[y * width + x] = static_cast<unsigned char>(hi - lo);
        }
    }
}
