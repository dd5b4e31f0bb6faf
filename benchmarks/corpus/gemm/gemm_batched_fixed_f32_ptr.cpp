// Batched small matrix products C_b = A_b B_b over batch 16 x 16 (a compile-time size) row-major
// matrices stored back to back; float.

#define S 16

// regrapht: batch = 16384; A[batch*16*16] in ~ uniform(-1, 1); B[batch*16*16] in ~ uniform(-1, 1)
// regrapht: C[batch*16*16] out
void batched_gemm(int batch, const float* A, const float* B, float* C) {
    for (int b = 0; b < batch; ++b) {
        const int base = b * S * S;
        for (int i = 0; i < S; ++i) {
            for (int j = 0; j < S; ++j) {
                float acc = 0.0f;
                for (int p = 0; p < S; ++p) {
                    acc += A[base + i * S + p] * B[base + p * S + j];
                }
                C[base + i * S + j] = acc;
            }
        }
    }
}
