// Batched small matrix products C_b = A_b B_b over batch s x s row-major matrices stored back to
// back; double.
#include <vector>

// regrapht: batch = 2048; s = 32; A[batch*s*s] in ~ uniform(-1, 1)
// regrapht: B[batch*s*s] in ~ uniform(-1, 1); C[batch*s*s] out
void batched_gemm(int batch, int s, const std::vector<double>& A, const std::vector<double>& B,
                  std::vector<double>& C) {
    for (int b = 0; b < batch; ++b) {
        const int base = b * s * s;
        for (int i = 0; i < s; ++i) {
            for (int j = 0; j < s; ++j) {
                double acc = 0.0;
                for (int p = 0; p < s; ++p) {
                    acc += A[base + i * s + p] * B[base + p * s + j];
                }
                C[base + i * s + j] = acc;
            }
        }
    }
}
