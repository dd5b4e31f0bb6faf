// 2-D stencil: one 5-point Jacobi step over the interior of an h x w grid; the border of
// out keeps its values (inout). The inner loop runs over [1, w-1), inside the row that
// iteration i owns, so the rewriter maps the interior onto a 2-D grid.
// regrapht: h = 4096; w = 4096; in[h*w] in; out[h*w] inout
void jacobi2d_interior(int h, int w, const float* in, float* out) {
    for (int i = 1; i < h - 1; ++i) {
        for (int j = 1; j < w - 1; ++j) {
            out[i * w + j] = 0.2f * (in[i * w + j] + in[(i - 1) * w + j] + in[(i + 1) * w + j] +
                                     in[i * w + j - 1] + in[i * w + j + 1]);
        }
    }
}
