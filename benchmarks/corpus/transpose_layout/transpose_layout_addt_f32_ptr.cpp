// Matrix add with one operand transposed: C = A + B^T, A and C m x n, B n x m, row-major; float.

// regrapht: m = 4096; n = 2048; A[m*n] in ~ uniform(-1, 1); B[n*m] in ~ uniform(-1, 1); C[m*n] out
void add_transposed(int m, int n, const float* A, const float* B, float* C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            C[i * n + j] = A[i * n + j] + B[j * m + i];
        }
    }
}
