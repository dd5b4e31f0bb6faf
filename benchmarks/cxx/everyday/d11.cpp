#include <cmath>
double sum_squares(const float* x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += std::pow(x[i], 2);
    return s;
}
