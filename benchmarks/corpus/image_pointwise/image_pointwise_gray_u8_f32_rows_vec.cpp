// Image op: interleaved 8-bit RGB to float luma in [0, 1] (BT.601 weights); rows then columns,
// vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096
// regrapht: rgb[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: luma[height*width] out
void gray_u8_f32_image(int width, int height, const std::vector<unsigned char>& rgb,
                       std::vector<float>& luma) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            luma[y * width + x] = (0.299f * rgb[3 * (y * width + x)] + 0.587f * rgb[3 * (y * width + x) + 1] + 0.114f * rgb[3 * (y * width + x) + 2]) / 255.0f;
        }
    }
}
