// 2-D stencil: isotropic 9-point Laplacian scaled by 1/h^2 over the interior of a rows x cols
// row-major grid; the border of out keeps its values; float.
#include <vector>

// regrapht: rows = 2048; cols = 4096; inv_h2 = 0.25; in[rows*cols] in ~ uniform(-1, 1)
// regrapht: out[rows*cols] inout
void laplace9_2d(int rows, int cols, float inv_h2, const std::vector<float>& in,
                 std::vector<float>& out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            const int idx = i * cols + j;
            const float edges = in[idx - cols] + in[idx + cols]
                + in[idx - 1] + in[idx + 1];
            const float corners = in[idx - cols - 1] + in[idx - cols + 1]
                + in[idx + cols - 1] + in[idx + cols + 1];
            out[idx] = inv_h2 / 6.0f * (4.0f * edges + corners - 20.0f * in[idx]);
        }
    }
}
