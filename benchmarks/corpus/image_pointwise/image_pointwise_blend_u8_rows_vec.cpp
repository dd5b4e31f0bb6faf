// Image op: alpha blending of two interleaved 8-bit RGB images with a fixed alpha; rows then
// columns, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096; alpha = 180
// regrapht: a[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: b[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: out[height*width*3] out
void blend_u8_image(int width, int height, int alpha, const std::vector<unsigned char>& a,
                    const std::vector<unsigned char>& b, std::vector<unsigned char>& out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            for (int c = 0; c < 3; ++c) {
                out[3 * (y * width + x) + c] = (unsigned char)((alpha * a[3 * (y * width + x) + c] + (255 - alpha) * b[3 * (y * width + x) + c] + 127) / 255);
            }
        }
    }
}
