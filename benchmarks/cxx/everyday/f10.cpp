#include <vector>
#include <cstddef>
void matmul_vec(const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c, int n) { for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) { double s = 0; for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j]; c[i * n + j] = s; } }
