// Image op: alpha blending of two float images through a per-pixel alpha matte; rows then columns,
// pointer arguments.

// regrapht: width = 4096; height = 4096
// regrapht: fg[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: bg[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: alpha[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void blend_f32_image(int width, int height, const float* fg, const float* bg, const float* alpha,
                     float* out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            out[y * width + x] = alpha[y * width + x] * fg[y * width + x] + (1.0f - alpha[y * width + x]) * bg[y * width + x];
        }
    }
}
