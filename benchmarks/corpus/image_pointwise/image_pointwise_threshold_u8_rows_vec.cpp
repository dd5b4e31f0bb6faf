// Image op: binary threshold of an 8-bit image to 0 or 255; rows then columns, vector arguments.
#include <vector>

// regrapht: width = 4096; height = 4096; t = 128
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void threshold_u8_image(int width, int height, unsigned char t,
                        const std::vector<unsigned char>& img, std::vector<unsigned char>& out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            out[y * width + x] = img[y * width + x] > t ? 255 : 0;
        }
    }
}
