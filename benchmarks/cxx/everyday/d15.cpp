#include <vector>
template <typename T>
void axpy(T a, const std::vector<T>& x, std::vector<T>& y) {
    for (size_t i = 0; i < x.size(); ++i) y[i] += a * x[i];
}
template void axpy<float>(float, const std::vector<float>&, std::vector<float>&);
