#include <vector>
void saxpy_omp(float a, const std::vector<float>& x, std::vector<float>& y) {
    const int n = (int)x.size();
#pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
