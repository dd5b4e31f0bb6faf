#include <vector>
#include <cstddef>
float max_loop(const std::vector<float>& x) { float m = x[0]; for (std::size_t i = 1; i < x.size(); ++i) if (x[i] > m) m = x[i]; return m; }
