// 2-D stencil: 3x3 box blur over the interior of a rows x cols row-major grid (the border of out
// keeps its values); float.

constexpr int R = 1;

// regrapht: rows = 2048; cols = 2048; in[rows*cols] in ~ uniform(-1, 1); out[rows*cols] inout
void box_blur1(int rows, int cols, const float* in, float* out) {
    const float scale = 0.1111111111111111f;
    for (int i = R; i < rows - R; ++i) {
        for (int j = R; j < cols - R; ++j) {
            float acc = 0.0f;
            for (int di = -R; di <= R; ++di) {
                for (int dj = -R; dj <= R; ++dj) {
                    acc += in[(i + di) * cols + (j + dj)];
                }
            }
            out[i * cols + j] = acc * scale;
        }
    }
}
