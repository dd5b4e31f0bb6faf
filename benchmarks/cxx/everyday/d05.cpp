#include <vector>
// C = A + B on nested vectors
void add_matrices(const std::vector<std::vector<float>>& A, const std::vector<std::vector<float>>& B,
                  std::vector<std::vector<float>>& C) {
    for (size_t i = 0; i < A.size(); ++i)
        for (size_t j = 0; j < A[i].size(); ++j)
            C[i][j] = A[i][j] + B[i][j];
}
