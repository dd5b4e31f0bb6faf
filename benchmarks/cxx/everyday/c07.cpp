#include <vector>
#include <cstddef>
// variance (two-pass)
double variance(const std::vector<double>& v) {
    double mean = 0.0;
    for (double e : v) mean += e;
    mean /= v.size();
    double var = 0.0;
    for (double e : v) var += (e - mean) * (e - mean);
    return var / v.size();
}
