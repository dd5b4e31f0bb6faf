// Image op: interleaved 8-bit RGB to 8-bit gray with integer weights; one flat loop over the
// pixels, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096
// regrapht: rgb[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: gray[height*width] out
void gray_u8_image(int width, int height, const std::vector<unsigned char>& rgb,
                   std::vector<unsigned char>& gray) {
    for (int i = 0; i < width * height; ++i) {
        int r = rgb[3 * i];
        int g = rgb[3 * i + 1];
        int b = rgb[3 * i + 2];
        gray[i] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
    }
}
