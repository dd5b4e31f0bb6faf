#include <vector>
#include <cstddef>
int count_even(const std::vector<int>& v) { int c = 0; for (auto x : v) c += (x % 2 == 0); return c; }
