#include <vector>
void add_bias(std::vector<float>& m, const std::vector<float>& bias, int rows, int cols) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m[r * cols + c] += bias[c];
}
