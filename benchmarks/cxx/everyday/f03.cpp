#include <vector>
#include <cstddef>
void twice_ne(const std::vector<float>& x, std::vector<float>& y) { for (std::size_t i = 0; i != x.size(); ++i) y[i] = 2 * x[i]; }
