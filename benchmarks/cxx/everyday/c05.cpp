#include <vector>
#include <cstddef>
// CSR sparse matrix-vector product
void spmv(const std::vector<int>& row_ptr, const std::vector<int>& col, const std::vector<float>& val,
          const std::vector<float>& x, std::vector<float>& y) {
    const int rows = static_cast<int>(row_ptr.size()) - 1;
    for (int r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) s += val[k] * x[col[k]];
        y[r] = s;
    }
}
