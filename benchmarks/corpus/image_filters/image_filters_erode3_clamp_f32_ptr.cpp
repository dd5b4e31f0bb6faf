// Image filter: 3x3 erosion (minimum over the neighbourhood), clamping coordinates at the borders;
// single-channel float image, width x height row-major.
#include <algorithm>

// regrapht: width = 2048; height = 2048
// regrapht: src[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: dst[height*width] out
void erode(int width, int height, const float* src, float* dst) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float m = 1e30f;
            for (int dy = -1; dy <= 1; ++dy) {
                const int yy = std::min(std::max(y + dy, 0), height - 1);
                for (int dx = -1; dx <= 1; ++dx) {
                    const int xx = std::min(std::max(x + dx, 0), width - 1);
                    m = std::min(m, src[yy * width + xx]);
                }
            }
            dst[y * width + x] = m;
        }
    }
}
