// Image op: 5x5 box blur of a single-channel float image (width x height, row-major),
// clamping coordinates at the borders.
// regrapht: width = 4096; height = 4096
// regrapht: img[height*width] in ~ image(width=width, height=height, channels=1); out[height*width] out
void box_blur5(int width, int height, const float* img, float* out) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float acc = 0.0f;
            for (int dy = -2; dy <= 2; ++dy) {
                int yy = y + dy;
                yy = yy < 0 ? 0 : (yy > height - 1 ? height - 1 : yy);
                for (int dx = -2; dx <= 2; ++dx) {
                    int xx = x + dx;
                    xx = xx < 0 ? 0 : (xx > width - 1 ? width - 1 : xx);
                    acc += img[yy * width + xx];
                }
            }
            out[y * width + x] = acc * (1.0f / 25.0f);
        }
    }
}
