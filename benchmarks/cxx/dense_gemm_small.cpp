// C = A * B, row-major, A is M x K, B is K x N. Zero C, then the cache-friendly i-k-j loop.
// regrapht: M = 512; N = 512; K = 512
void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    for (int i = 0; i < M * N; ++i) {
        C[i] = 0.0f;
    }
    for (int i = 0; i < M; ++i) {
        for (int k = 0; k < K; ++k) {
            const float a = A[i * K + k];
            for (int j = 0; j < N; ++j) {
                C[i * N + j] += a * B[k * N + j];
            }
        }
    }
}
