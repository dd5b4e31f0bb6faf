#include <vector>
#include <cstddef>
void ema(const std::vector<float>& x, std::vector<float>& y, float alpha) { y[0] = x[0]; for (std::size_t i = 1; i < x.size(); ++i) y[i] = alpha * x[i] + (1 - alpha) * y[i - 1]; }
