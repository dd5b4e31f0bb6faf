// 2-D stencil: explicit heat-equation step with coefficient alpha over the interior of a rows x
// cols row-major grid; the border of out keeps its values; double.
#include <vector>

// regrapht: rows = 2048; cols = 4096; alpha = 0.2; in[rows*cols] in ~ uniform(-1, 1)
// regrapht: out[rows*cols] inout
void heat_2d(int rows, int cols, double alpha, const std::vector<double>& in,
             std::vector<double>& out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            const int idx = i * cols + j;
            const double center = in[idx];
            out[idx] = center + alpha * (in[idx - cols] + in[idx + cols]
                + in[idx - 1] + in[idx + 1]
                - 4.0 * center);
        }
    }
}
