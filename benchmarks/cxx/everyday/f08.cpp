#include <vector>
#include <cstddef>
void lag_diffs(const std::vector<int>& x, std::vector<int>& y, int k) { for (int i = 0; i < (int)x.size() - k; ++i) y[i] = x[i + k] - x[i]; }
