#include <vector>
// matrix-vector product with vector of vectors flattened
std::vector<float> matvec(const std::vector<float>& A, const std::vector<float>& x, int n) {
    std::vector<float> y(n);
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) acc += A[i * n + j] * x[j];
        y[i] = acc;
    }
    return y;
}
