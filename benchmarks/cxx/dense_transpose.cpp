#include <vector>
#include <cstddef>

// Out-of-place transpose of a rows x cols row-major matrix.
void transpose(const std::vector<double>& a, std::vector<double>& t, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const size_t row = static_cast<size_t>(r) * cols;
        for (int c = 0; c < cols; ++c) {
            t[static_cast<size_t>(c) * rows + r] = a[row + c];
        }
    }
}
