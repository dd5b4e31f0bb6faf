#include <vector>
#include <cstddef>
std::vector<int> argmax_rows(const std::vector<float>& m, int rows, int cols) {
    std::vector<int> best(rows);
    for (int r = 0; r < rows; ++r) {
        int b = 0;
        for (int c = 1; c < cols; ++c)
            if (m[r * cols + c] > m[r * cols + b]) b = c;
        best[r] = b;
    }
    return best;
}
