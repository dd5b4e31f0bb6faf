#include <vector>
#include <array>

// 3x3 convolution with clamp-to-edge borders; weights in row-major order.
// regrapht: width = 1024; height = 1024
void conv3x3(const std::vector<float>& img, std::vector<float>& out, int width, int height,
             const std::array<float, 9>& k) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                int yy = y + dy;
                if (yy < 0) yy = 0;
                if (yy >= height) yy = height - 1;
                for (int dx = -1; dx <= 1; ++dx) {
                    int xx = x + dx;
                    if (xx < 0) xx = 0;
                    if (xx >= width) xx = width - 1;
                    acc += k[(dy + 1) * 3 + (dx + 1)] * img[yy * width + xx];
                }
            }
            int i = y * width + x;
            out[i] = acc;
        }
    }
}
