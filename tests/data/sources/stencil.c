/* Smoothing stencils: a 1-D three-point average and a 2-D Jacobi sweep.
   Border cells are left untouched, so the outputs are in-out. */

void blur3(int n, const float *in, float *out)
{
    for (int i = 1; i < n - 1; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}

void jacobi2d(int h, int w, const float *restrict src, float *restrict dst)
{
    for (int i = 1; i < h - 1; ++i) {
        for (int j = 1; j < w - 1; ++j) {
            dst[i * w + j] = 0.25f * (src[(i - 1) * w + j] + src[(i + 1) * w + j] +
                                      src[i * w + j - 1] + src[i * w + j + 1]);
        }
    }
}
