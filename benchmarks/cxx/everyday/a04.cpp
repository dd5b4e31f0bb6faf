#include <vector>
// 2D matrix transpose, row-major
void transpose(const std::vector<double>& a, std::vector<double>& b, int rows, int cols) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            b[c * rows + r] = a[r * cols + c];
}
