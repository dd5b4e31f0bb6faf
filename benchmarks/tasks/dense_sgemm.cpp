// Dense matrix-matrix product, naive triple loop: C = A B, all n x n row-major.
// regrapht: n = 512; A[n*n] in; B[n*n] in; C[n*n] out
void sgemm(int n, const float* A, const float* B, float* C) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < n; ++k) {
                acc += A[i * n + k] * B[k * n + j];
            }
            C[i * n + j] = acc;
        }
    }
}
