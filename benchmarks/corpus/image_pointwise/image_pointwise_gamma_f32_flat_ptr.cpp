// Image op: gamma correction with powf on a float image; one flat loop over the pixels, pointer
// arguments.
#include <cmath>

// regrapht: width = 4096; height = 4096; gamma = 0.4545
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void gamma_f32_image(int width, int height, float gamma, const float* img, float* out) {
    for (int i = 0; i < width * height; ++i) {
        out[i] = powf(img[i], gamma);
    }
}
