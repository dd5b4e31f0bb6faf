#include <vector>
#include <cstddef>
void twice_hoisted(const std::vector<float>& x, std::vector<float>& y) { for (std::size_t i = 0, n = x.size(); i < n; ++i) y[i] = 2 * x[i]; }
