#include <vector>
#include <cstddef>
void leaky_relu(const std::vector<float>& x, std::vector<float>& y) { for (std::size_t i = 0; i < x.size(); ++i) { y[i] = x[i] > 0 ? x[i] : 0.01f * x[i]; } }
