// 3-D stencil: heat-equation step with a per-cell conductivity kappa and time step dt over the
// interior of an nx x ny x nz grid (x fastest); the boundary of out keeps its values; float.

// regrapht: nx = 256; ny = 256; nz = 256; dt = 0.1; in[nx*ny*nz] in ~ uniform(-1, 1)
// regrapht: kappa[nx*ny*nz] in ~ uniform(0, 1); out[nx*ny*nz] inout
void kheat_3d(int nx, int ny, int nz, float dt, const float* in, const float* kappa, float* out) {
    const int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        for (int y = 1; y < ny - 1; ++y) {
            for (int x = 1; x < nx - 1; ++x) {
                const int idx = z * plane + y * nx + x;
                const float lap = in[idx - 1] + in[idx + 1]
                    + in[idx - nx] + in[idx + nx]
                    + in[idx - plane] + in[idx + plane]
                    - 6.0f * in[idx];
                out[idx] = in[idx] + dt * kappa[idx] * lap;
            }
        }
    }
}
