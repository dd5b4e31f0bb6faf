// 2-D stencil: Sobel gradient magnitude over the interior of a rows x cols row-major grid; the
// border of out keeps its values; double.
#include <cmath>
#include <vector>

// regrapht: rows = 2048; cols = 2048; in[rows*cols] in ~ uniform(-1, 1); out[rows*cols] inout
void sobel_2d(int rows, int cols, const std::vector<double>& in, std::vector<double>& out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            const int idx = i * cols + j;
            const double gx = (in[idx - cols + 1] + 2.0 * in[idx + 1] + in[idx + cols + 1])
                - (in[idx - cols - 1] + 2.0 * in[idx - 1] + in[idx + cols - 1]);
            const double gy = (in[idx + cols - 1] + 2.0 * in[idx + cols] + in[idx + cols + 1])
                - (in[idx - cols - 1] + 2.0 * in[idx - cols] + in[idx - cols + 1]);
            out[idx] = std::sqrt(gx * gx + gy * gy);
        }
    }
}
