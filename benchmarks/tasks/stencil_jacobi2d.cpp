// 2-D stencil: one 5-point Jacobi step over an h x w grid (row-major). Every output cell is
// written: interior cells get the stencil, border cells copy the input.
// regrapht: h = 4096; w = 4096; in[h*w] in; out[h*w] out
void jacobi2d(int h, int w, const float* in, float* out) {
    for (int i = 0; i < h; ++i) {
        for (int j = 0; j < w; ++j) {
            bool border = i == 0 || j == 0 || i == h - 1 || j == w - 1;
            out[i * w + j] = border ? in[i * w + j]
                                    : 0.2f * (in[i * w + j] + in[(i - 1) * w + j] +
                                              in[(i + 1) * w + j] + in[i * w + j - 1] +
                                              in[i * w + j + 1]);
        }
    }
}
