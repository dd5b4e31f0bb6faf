// Image op: binary mask of a float image at a threshold; rows then columns, pointer arguments.

// regrapht: width = 4096; height = 4096; t = 0.5
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: mask[height*width] out
void threshold_f32_image(int width, int height, float t, const float* img, float* mask) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            mask[y * width + x] = img[y * width + x] >= t ? 1.0f : 0.0f;
        }
    }
}
