// 3-D stencil: explicit heat-equation step out = in + alpha * (7-point Laplacian) over the interior
// of an nx x ny x nz grid (x fastest); the boundary of out keeps its values; double.

// regrapht: nx = 256; ny = 256; nz = 128; alpha = 0.1; in[nx*ny*nz] in ~ uniform(-1, 1)
// regrapht: out[nx*ny*nz] inout
void heat_3d(int nx, int ny, int nz, double alpha, const double* in, double* out) {
    const int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        for (int y = 1; y < ny - 1; ++y) {
            for (int x = 1; x < nx - 1; ++x) {
                const int idx = z * plane + y * nx + x;
                const double lap = in[idx - 1] + in[idx + 1]
                    + in[idx - nx] + in[idx + nx]
                    + in[idx - plane] + in[idx + plane]
                    - 6.0 * in[idx];
                out[idx] = in[idx] + alpha * lap;
            }
        }
    }
}
