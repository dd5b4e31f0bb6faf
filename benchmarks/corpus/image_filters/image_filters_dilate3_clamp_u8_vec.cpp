// Image filter: 3x3 dilation (maximum over the neighbourhood), clamping coordinates at the borders;
// single-channel unsigned char image, width x height row-major.
#include <algorithm>
#include <vector>

// regrapht: width = 2048; height = 2048
// regrapht: src[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: dst[height*width] out
void dilate(int width, int height, const std::vector<unsigned char>& src,
            std::vector<unsigned char>& dst) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            unsigned char m = 0;
            for (int dy = -1; dy <= 1; ++dy) {
                const int yy = std::min(std::max(y + dy, 0), height - 1);
                for (int dx = -1; dx <= 1; ++dx) {
                    const int xx = std::min(std::max(x + dx, 0), width - 1);
                    m = std::max(m, src[yy * width + xx]);
                }
            }
            dst[y * width + x] = m;
        }
    }
}
