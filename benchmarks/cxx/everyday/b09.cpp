#include <vector>
#include <cstddef>
double l1_distance(const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        double diff = a[i] - b[i];
        d += diff < 0 ? -diff : diff;
    }
    return d;
}
