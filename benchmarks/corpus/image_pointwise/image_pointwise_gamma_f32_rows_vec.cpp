// Image op: gamma correction with powf on a float image; rows then columns, vector arguments.
#include <cmath>
#include <vector>

// regrapht: width = 4096; height = 4096; gamma = 0.4545
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void gamma_f32_image(int width, int height, float gamma, const std::vector<float>& img,
                     std::vector<float>& out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            out[y * width + x] = powf(img[y * width + x], gamma);
        }
    }
}
