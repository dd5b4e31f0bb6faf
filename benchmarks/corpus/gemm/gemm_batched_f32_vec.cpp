// Batched small matrix products C_b = A_b B_b over batch s x s row-major matrices stored back to
// back; float.
#include <vector>

// regrapht: batch = 2048; s = 32; A[batch*s*s] in ~ uniform(-1, 1)
// regrapht: B[batch*s*s] in ~ uniform(-1, 1); C[batch*s*s] out
void batched_gemm(int batch, int s, const std::vector<float>& A, const std::vector<float>& B,
                  std::vector<float>& C) {
    for (int b = 0; b < batch; ++b) {
        const int base = b * s * s;
        for (int i = 0; i < s; ++i) {
            for (int j = 0; j < s; ++j) {
                float acc = 0.0f;
                for (int p = 0; p < s; ++p) {
                    acc += A[base + i * s + p] * B[base + p * s + j];
                }
                C[base + i * s + j] = acc;
            }
        }
    }
}
