// Matrix add with one operand transposed: C = A + B^T, A and C m x n, B n x m, row-major; int.

// regrapht: m = 4096; n = 2048; A[m*n] in; B[n*m] in; C[m*n] out
void add_transposed(int m, int n, const int* A, const int* B, int* C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            C[i * n + j] = A[i * n + j] + B[j * m + i];
        }
    }
}
