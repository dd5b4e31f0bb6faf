#include <vector>
#include <cstddef>
void add(const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c) {
    int n = static_cast<int>(a.size());
#pragma omp parallel for
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
