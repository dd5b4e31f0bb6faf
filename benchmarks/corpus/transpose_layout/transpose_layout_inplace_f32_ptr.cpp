// In-place transpose of a square n x n row-major matrix (swapping across the diagonal); float.

// regrapht: n = 3072; a[n*n] inout ~ uniform(-1, 1)
void transpose_inplace(int n, float* a) {
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            const float t = a[i * n + j];
            a[i * n + j] = a[j * n + i];
            a[j * n + i] = t;
        }
    }
}
