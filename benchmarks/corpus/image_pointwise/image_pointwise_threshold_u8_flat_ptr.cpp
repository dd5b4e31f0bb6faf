// Image op: binary threshold of an 8-bit image to 0 or 255; one flat loop over the pixels, pointer
// arguments.

// regrapht: width = 4096; height = 4096; t = 128
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void threshold_u8_image(int width, int height, unsigned char t, const unsigned char* img,
                        unsigned char* out) {
    for (int i = 0; i < width * height; ++i) {
        out[i] = img[i] > t ? 255 : 0;
    }
}
