// Image op: binary mask of a float image at a threshold; one flat loop over the pixels, vector
// arguments.
#include <vector>

// regrapht: width = 4096; height = 4096; t = 0.5
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: mask[height*width] out
void threshold_f32_image(int width, int height, float t, const std::vector<float>& img,
                         std::vector<float>& mask) {
    for (int i = 0; i < width * height; ++i) {
        mask[i] = img[i] >= t ? 1.0f : 0.0f;
    }
}
