// Sparse matrix-vector product, COO with row-sorted triplets, on a fixed NROWS x NCOLS matrix,
// float.
#include <vector>

#define NROWS 65536
#define NCOLS 131072

// regrapht: nnz = 1<<23; atol = 1e-3; rtol = 1e-3; row[nnz] in ~ sorted(0, 65535)
// regrapht: col[nnz] in ~ int(0, 131071); val[nnz] in ~ normal(0, 1); x[131072] in; y[65536] out
void spmv_coo(int nnz, const std::vector<int>& row, const std::vector<int>& col,
              const std::vector<float>& val, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < NROWS; ++i) {
        y[i] = 0.0f;
    }
    for (int k = 0; k < nnz; ++k) {
        y[row[k]] += val[k] * x[col[k]];
    }
}
