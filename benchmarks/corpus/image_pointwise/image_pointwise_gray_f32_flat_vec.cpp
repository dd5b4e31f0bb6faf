// Image op: interleaved float RGB to relative luminance (BT.709 weights); one flat loop over the
// pixels, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096
// regrapht: rgb[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: lum[height*width] out
void gray_f32_image(int width, int height, const std::vector<float>& rgb, std::vector<float>& lum) {
    for (int i = 0; i < width * height; ++i) {
        lum[i] = 0.2126f * rgb[3 * i] + 0.7152f * rgb[3 * i + 1] + 0.0722f * rgb[3 * i + 2];
    }
}
