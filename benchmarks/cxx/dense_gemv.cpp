#include <vector>
#include <cstddef>

// y = A x for a row-major rows x cols matrix stored flat.
void gemv(const std::vector<float>& A, const std::vector<float>& x, std::vector<float>& y,
          int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const size_t row = static_cast<size_t>(r) * cols;
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            sum += A[row + c] * x[c];
        }
        y[r] = sum;
    }
}
