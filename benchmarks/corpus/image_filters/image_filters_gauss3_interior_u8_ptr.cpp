// Image filter: 3x3 Gaussian blur with integer binomial weights normalised by 16, over the interior
// (the border of dst keeps its values); single-channel unsigned char image, width x height
// row-major.

constexpr int R = 1;
constexpr int kTaps[2 * R + 1] = {1, 2, 1};  // sum 4

// regrapht: width = 2048; height = 2048
// regrapht: src[height*width] in ~ image(width=width, height=height, channels=1)
// regrapht: dst[height*width] inout ~ image(width=width, height=height, channels=1)
void gaussian3x3(int width, int height, const unsigned char* src, unsigned char* dst) {
    for (int y = R; y < height - R; ++y) {
        for (int x = R; x < width - R; ++x) {
            int acc = 0;
            for (int dy = -R; dy <= R; ++dy) {
                const int yy = y + dy;
                for (int dx = -R; dx <= R; ++dx) {
                    const int xx = x + dx;
                    acc += kTaps[dy + R] * kTaps[dx + R] * src[yy * width + xx];
                }
            }
            dst[y * width + x] = static_cast<unsigned char>((acc + 8) / 16);
        }
    }
}
