// 2-D stencil: box blur of run-time radius r over the interior of a rows x cols row-major grid (the
// border of out keeps its values); float.

// regrapht: rows = 2048; cols = 2048; r = 2; in[rows*cols] in ~ uniform(-1, 1)
// regrapht: out[rows*cols] inout
void box_blur(int rows, int cols, int r, const float* in, float* out) {
    const float scale = 1.0f / ((2 * r + 1) * (2 * r + 1));
    for (int i = r; i < rows - r; ++i) {
        for (int j = r; j < cols - r; ++j) {
            float acc = 0.0f;
            for (int di = -r; di <= r; ++di) {
                for (int dj = -r; dj <= r; ++dj) {
                    acc += in[(i + di) * cols + (j + dj)];
                }
            }
            out[i * cols + j] = acc * scale;
        }
    }
}
