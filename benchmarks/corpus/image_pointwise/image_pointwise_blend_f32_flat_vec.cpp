// Image op: alpha blending of two float images through a per-pixel alpha matte; one flat loop over
// the pixels, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096
// regrapht: fg[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: bg[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: alpha[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void blend_f32_image(int width, int height, const std::vector<float>& fg,
                     const std::vector<float>& bg, const std::vector<float>& alpha,
                     std::vector<float>& out) {
    for (int i = 0; i < width * height; ++i) {
        out[i] = alpha[i] * fg[i] + (1.0f - alpha[i]) * bg[i];
    }
}
