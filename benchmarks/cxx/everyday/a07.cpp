#include <vector>
// 1D stencil with std::vector, in-place double buffer
void jacobi(std::vector<float>& u, std::vector<float>& tmp) {
    const size_t n = u.size();
    for (size_t i = 1; i + 1 < n; ++i) tmp[i] = 0.5f * (u[i - 1] + u[i + 1]);
    for (size_t i = 1; i + 1 < n; ++i) u[i] = tmp[i];
}
