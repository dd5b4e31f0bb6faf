// Image op: brightness and contrast alpha * p + beta in float, clamped to 0..255; one flat loop
// over the pixels, pointer arguments.

// regrapht: width = 4096; height = 4096; alpha = 1.5; beta = -20
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: out[height*width] out
void contrast_u8_image(int width, int height, float alpha, float beta, const unsigned char* img,
                       unsigned char* out) {
    for (int i = 0; i < width * height; ++i) {
        float v = alpha * img[i] + beta;
        out[i] = (unsigned char)(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
    }
}
