// Image op: alpha blending of two interleaved 8-bit RGB images with a fixed alpha; one flat loop
// over the pixels, pointer arguments.

// regrapht: width = 4096; height = 4096; alpha = 180
// regrapht: a[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: b[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: out[height*width*3] out
void blend_u8_image(int width, int height, int alpha, const unsigned char* a,
                    const unsigned char* b, unsigned char* out) {
    for (int i = 0; i < width * height; ++i) {
        for (int c = 0; c < 3; ++c) {
            out[3 * i + c] = (unsigned char)((alpha * a[3 * i + c] + (255 - alpha) * b[3 * i + c] + 127) / 255);
        }
    }
}
