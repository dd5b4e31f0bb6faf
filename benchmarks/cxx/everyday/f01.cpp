#include <vector>
#include <cstddef>
void pair_sums(const std::vector<float>& x, std::vector<float>& y) { for (std::size_t i = 0; i + 2 <= x.size(); ++i) y[i] = x[i] + x[i + 1]; }
