// 2-D stencil: 5-point Jacobi step (average of a cell and its 4 neighbours) over the interior of a
// rows x cols row-major grid; the border of out keeps its values; float.
#include <vector>

// regrapht: rows = 2048; cols = 3000; in[rows*cols] in ~ uniform(-1, 1); out[rows*cols] inout
void jacobi5_2d(int rows, int cols, const std::vector<float>& in, std::vector<float>& out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            out[i * cols + j] = 0.2f * (in[i * cols + j] + in[(i - 1) * cols + j] + in[(i + 1) * cols + j]
                + in[i * cols + j - 1] + in[i * cols + j + 1]);
        }
    }
}
