// Image filter: 5x5 Gaussian blur with integer binomial weights normalised by 256, clamping
// coordinates at the borders; single-channel float image, width x height row-major.
#include <algorithm>

constexpr int R = 2;
constexpr int kTaps[2 * R + 1] = {1, 4, 6, 4, 1};  // sum 16

// regrapht: width = 1536; height = 2048
// regrapht: src[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: dst[height*width] out
void gaussian5x5(int width, int height, const float* src, float* dst) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float acc = 0;
            for (int dy = -R; dy <= R; ++dy) {
                const int yy = std::min(std::max(y + dy, 0), height - 1);
                for (int dx = -R; dx <= R; ++dx) {
                    const int xx = std::min(std::max(x + dx, 0), width - 1);
                    acc += static_cast<float>(kTaps[dy + R] * kTaps[dx + R]) * src[yy * width + xx];
                }
            }
            dst[y * width + x] = acc * 0.00390625f;
        }
    }
}
