// Image op: interleaved 8-bit RGB to 8-bit gray with integer weights; rows then columns, pointer
// arguments.

// regrapht: width = 4096; height = 4096
// regrapht: rgb[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: gray[height*width] out
void gray_u8_image(int width, int height, const unsigned char* rgb, unsigned char* gray) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int r = rgb[3 * (y * width + x)];
            int g = rgb[3 * (y * width + x) + 1];
            int b = rgb[3 * (y * width + x) + 2];
            gray[y * width + x] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
        }
    }
}
