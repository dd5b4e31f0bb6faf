// Image op: integer contrast about mid-gray plus brightness, clamped to 0..255; one flat loop over
// the pixels, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096; contrast = 80; brightness = 10
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void levels_u8_image(int width, int height, int contrast, int brightness,
                     const std::vector<unsigned char>& img, std::vector<unsigned char>& out) {
    for (int i = 0; i < width * height; ++i) {
        int v = (img[i] - 128) * contrast / 64 + 128 + brightness;
        out[i] = (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
    }
}
