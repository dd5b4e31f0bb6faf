#include <vector>
#include <cstddef>
void twice_le(const std::vector<float>& x, std::vector<float>& y) { for (std::size_t i = 0; i <= x.size() - 1; ++i) y[i] = 2 * x[i]; }
