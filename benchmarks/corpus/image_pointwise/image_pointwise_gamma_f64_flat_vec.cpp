// Image op: gamma correction with std::pow on a double image, then scaled to [0, 255]; one flat
// loop over the pixels, vector arguments.
#include <cmath>
#include <vector>

// regrapht: width = 4096; height = 2048; gamma = 2.2
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void gamma_f64_image(int width, int height, double gamma, const std::vector<double>& img,
                     std::vector<double>& out) {
    for (int i = 0; i < width * height; ++i) {
        out[i] = 255.0 * std::pow(img[i], gamma);
    }
}
