#include <vector>
#include <cmath>
#include <cstddef>

// Numerically stable softmax of each row of a rows x cols matrix, in place.
void softmax_rows(std::vector<float>& m, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const size_t base = static_cast<size_t>(r) * cols;
        float mx = m[base];
        for (int c = 1; c < cols; ++c) {
            if (m[base + c] > mx) mx = m[base + c];
        }
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            m[base + c] = std::exp(m[base + c] - mx);
            sum += m[base + c];
        }
        const float inv = 1.0f / sum;
        for (int c = 0; c < cols; ++c) {
            m[base + c] *= inv;
        }
    }
}
