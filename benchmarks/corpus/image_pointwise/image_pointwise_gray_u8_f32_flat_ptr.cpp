// Image op: interleaved 8-bit RGB to float luma in [0, 1] (BT.601 weights); one flat loop over the
// pixels, pointer arguments.

// regrapht: width = 4096; height = 4096
// regrapht: rgb[height*width*3] in ~ image(width=width, height=height, channels=3)
// regrapht: luma[height*width] out
void gray_u8_f32_image(int width, int height, const unsigned char* rgb, float* luma) {
    for (int i = 0; i < width * height; ++i) {
        luma[i] = (0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2]) / 255.0f;
    }
}
