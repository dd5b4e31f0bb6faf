// Image filter: 3x3 dilation (maximum over the neighbourhood), over the interior (the border of dst
// keeps its values); single-channel unsigned char image, width x height row-major.
#include <algorithm>

// regrapht: width = 2048; height = 2048
// regrapht: src[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: dst[height*width] inout ~ image(width=width, height=height, channels=1)
void dilate(int width, int height, const unsigned char* src, unsigned char* dst) {
    for (int y = 1; y < height - 1; ++y) {
        for (int x = 1; x < width - 1; ++x) {
            unsigned char m = 0;
            for (int dy = -1; dy <= 1; ++dy) {
                const int yy = y + dy;
                for (int dx = -1; dx <= 1; ++dx) {
                    const int xx = x + dx;
                    m = std::max(m, src[yy * width + xx]);
                }
            }
            dst[y * width + x] = m;
        }
    }
}
