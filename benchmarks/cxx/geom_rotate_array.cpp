#include <array>

// Rotates interleaved xyz points by a row-major 3x3 matrix.
void rotate_points(const float* in, float* out, int n, const std::array<float, 9>& R) {
    for (int i = 0; i < n; ++i) {
        const float x = in[3 * i + 0];
        const float y = in[3 * i + 1];
        const float z = in[3 * i + 2];
        out[3 * i + 0] = R[0] * x + R[1] * y + R[2] * z;
        out[3 * i + 1] = R[3] * x + R[4] * y + R[5] * z;
        out[3 * i + 2] = R[6] * x + R[7] * y + R[8] * z;
    }
}
