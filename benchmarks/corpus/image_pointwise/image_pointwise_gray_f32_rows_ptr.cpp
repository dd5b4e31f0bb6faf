// Image op: interleaved float RGB to relative luminance (BT.709 weights); rows then columns,
// pointer arguments.

// regrapht: width = 4096; height = 4096
// regrapht: rgb[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: lum[height*width] out
void gray_f32_image(int width, int height, const float* rgb, float* lum) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            lum[y * width + x] = 0.2126f * rgb[3 * (y * width + x)] + 0.7152f * rgb[3 * (y * width + x) + 1] + 0.0722f * rgb[3 * (y * width + x) + 2];
        }
    }
}
