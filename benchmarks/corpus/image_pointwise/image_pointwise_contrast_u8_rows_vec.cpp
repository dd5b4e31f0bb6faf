// Image op: brightness and contrast alpha * p + beta in float, clamped to 0..255; rows then
// columns, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096; alpha = 1.5; beta = -20
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void contrast_u8_image(int width, int height, float alpha, float beta,
                       const std::vector<unsigned char>& img, std::vector<unsigned char>& out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float v = alpha * img[y * width + x] + beta;
            out[y * width + x] = (unsigned char)(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
        }
    }
}
