// Image op: gamma correction with std::pow on a double image, then scaled to [0, 255]; rows then
// columns, pointer arguments.
#include <cmath>

// regrapht: width = 4096; height = 2048; gamma = 2.2
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void gamma_f64_image(int width, int height, double gamma, const double* img, double* out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            out[y * width + x] = 255.0 * std::pow(img[y * width + x], gamma);
        }
    }
}
