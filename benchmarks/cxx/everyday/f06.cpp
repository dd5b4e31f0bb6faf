#include <vector>
#include <cstddef>
void abs_copy(const std::vector<float>& x, std::vector<float>& y) { std::size_t n = x.size(); for (std::size_t i = 0; i < n; i++) { float v = x[i]; if (v < 0) v = -v; y[i] = v; } }
