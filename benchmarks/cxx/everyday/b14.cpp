#include <vector>
#include <cstddef>
void normalize_rows(std::vector<float>& m, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) s += m[r * cols + c];
        if (s != 0.0f)
            for (int c = 0; c < cols; ++c) m[r * cols + c] /= s;
    }
}
