// 2-D stencil: 9-point smoothing (weights 4/2/1 over 16) over the interior of a rows x cols
// row-major grid; the border of out keeps its values; float.

// regrapht: rows = 4096; cols = 2048; in[rows*cols] in ~ uniform(-1, 1); out[rows*cols] inout
void ninept_2d(int rows, int cols, const float* in, float* out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            const int idx = i * cols + j;
            out[idx] = 0.25f * in[idx]
            + 0.125f * (in[idx - cols] + in[idx + cols]
                + in[idx - 1] + in[idx + 1])
            + 0.0625f * (in[idx - cols - 1] + in[idx - cols + 1]
                + in[idx + cols - 1] + in[idx + cols + 1]);
        }
    }
}
