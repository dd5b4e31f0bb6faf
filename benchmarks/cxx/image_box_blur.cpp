// 3x3 box blur of the interior; the one-pixel border of dst is left untouched.
void boxBlur(const float* src, float* dst, int width, int height) {
    for (int y = 1; y < height - 1; y++) {
        for (int x = 1; x < width - 1; x++) {
            int i = y * width + x;
            float s = src[i - width - 1] + src[i - width] + src[i - width + 1]
                    + src[i - 1]         + src[i]         + src[i + 1]
                    + src[i + width - 1] + src[i + width] + src[i + width + 1];
            dst[i] = s * (1.0f / 9.0f);
        }
    }
}
