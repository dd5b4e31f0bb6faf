#include <vector>
#include <cstddef>
void saxpy(float a, const std::vector<float>& x, std::vector<float>& y) {
    auto n = x.size();
    for (decltype(n) i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
