// 2-D stencil: 3x3 box blur over the interior of a rows x cols row-major grid (the border of out
// keeps its values); double.
#include <vector>

constexpr int R = 1;

// regrapht: rows = 2048; cols = 2048; in[rows*cols] in ~ uniform(-1, 1); out[rows*cols] inout
void box_blur1(int rows, int cols, const std::vector<double>& in, std::vector<double>& out) {
    const double scale = 0.1111111111111111;
    for (int i = R; i < rows - R; ++i) {
        for (int j = R; j < cols - R; ++j) {
            double acc = 0.0;
            for (int di = -R; di <= R; ++di) {
                for (int dj = -R; dj <= R; ++dj) {
                    acc += in[(i + di) * cols + (j + dj)];
                }
            }
            out[i * cols + j] = acc * scale;
        }
    }
}
