// 2-D stencil: 5x5 box blur over the interior of a rows x cols row-major grid (the border of out
// keeps its values); float.
#include <vector>

constexpr int R = 2;

// regrapht: rows = 2048; cols = 2048; in[rows*cols] in ~ uniform(-1, 1); out[rows*cols] inout
void box_blur2(int rows, int cols, const std::vector<float>& in, std::vector<float>& out) {
    const float scale = 0.04f;
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
