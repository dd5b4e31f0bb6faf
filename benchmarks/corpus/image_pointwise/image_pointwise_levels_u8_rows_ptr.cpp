// Image op: integer contrast about mid-gray plus brightness, clamped to 0..255; rows then columns,
// pointer arguments.

// regrapht: width = 4096; height = 4096; contrast = 80; brightness = 10
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void levels_u8_image(int width, int height, int contrast, int brightness,
                     const unsigned char* img, unsigned char* out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int v = (img[y * width + x] - 128) * contrast / 64 + 128 + brightness;
            out[y * width + x] = (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
    }
}
