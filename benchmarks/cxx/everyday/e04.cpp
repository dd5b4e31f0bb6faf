#include <vector>
void reverse_copy(const std::vector<double>& x, std::vector<double>& out) {
    const int n = static_cast<int>(x.size());
    for (int i = n - 1; i >= 0; --i) out[n - 1 - i] = x[i];
}
