// Image op: gamma correction with powf and a contrast curve, per pixel of a float image
// (values in [0, 1]).
#include <cmath>

// regrapht: width = 4096; height = 4096; gamma = 0.4545
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1); out[height*width] out
void gamma_curve(int width, int height, float gamma, const float* img, float* out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float v = powf(fmaxf(img[y * width + x], 0.0f), gamma);
            out[y * width + x] = v * v * (3.0f - 2.0f * v);
        }
    }
}
