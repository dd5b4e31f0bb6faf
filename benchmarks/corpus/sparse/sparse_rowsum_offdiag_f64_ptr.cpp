// CSR row sums of the absolute off-diagonal values (Gershgorin radii), double.
#include <cmath>

// regrapht: m = 1<<21; nnz = m*16; row_ptr[m+1] in ~ csr(col=col_idx); col_idx[nnz] in
// regrapht: vals[nnz] in ~ normal(0, 1); radius[m] out
void gershgorin_radii(int m, const int* row_ptr, const int* col_idx, const double* vals,
                      double* radius) {
    for (int i = 0; i < m; ++i) {
        double sum = 0.0;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            if (col_idx[p] != i) {
                sum += fabs(vals[p]);
            }
        }
        radius[i] = sum;
    }
}
