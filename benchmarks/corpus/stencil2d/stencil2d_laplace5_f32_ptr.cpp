// 2-D stencil: 5-point Laplacian scaled by 1/h^2 over the interior of a rows x cols row-major grid;
// the border of out keeps its values; float.

// regrapht: rows = 4096; cols = 4096; inv_h2 = 0.25; in[rows*cols] in ~ uniform(-1, 1)
// regrapht: out[rows*cols] inout
void laplace5_2d(int rows, int cols, float inv_h2, const float* in, float* out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            out[i * cols + j] = inv_h2 * (in[(i - 1) * cols + j] + in[(i + 1) * cols + j]
                + in[i * cols + j - 1] + in[i * cols + j + 1]
                - 4.0f * in[i * cols + j]);
        }
    }
}
