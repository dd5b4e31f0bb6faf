// Image filter: 3x3 Gaussian blur (weights 1 2 1, normalised by 16) of an interleaved RGB unsigned
// char image, clamping coordinates at the borders.
#include <algorithm>
#include <cstdlib>
#include <vector>

// regrapht: width = 1024; height = 1024
// regrapht: src[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: dst[height*width*3] out
void gaussian3x3_rgb(int width, int height, const std::vector<unsigned char>& src,
                     std::vector<unsigned char>& dst) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            for (int ch = 0; ch < 3; ++ch) {
                int acc = 0;
                for (int dy = -1; dy <= 1; ++dy) {
                    const int yy = std::min(std::max(y + dy, 0), height - 1);
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int xx = std::min(std::max(x + dx, 0), width - 1);
                        const int w = (2 - std::abs(dy)) * (2 - std::abs(dx));
                        acc += w * src[(yy * width + xx) * 3 + ch];
                    }
                }
                dst[(y * width + x) * 3 + ch] =
                    static_cast<unsigned char>((acc + 8) / 16);
            }
        }
    }
}
