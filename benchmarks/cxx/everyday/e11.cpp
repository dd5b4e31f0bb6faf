#include <vector>
#include <cmath>
void normalize(std::vector<double>& v) {
    double norm = 0.0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    if (norm == 0.0) return;
    for (double& x : v) x /= norm;
}
