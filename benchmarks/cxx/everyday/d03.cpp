#include <vector>
#include <algorithm>
long count_outliers(const std::vector<double>& v, double limit) {
    return std::count_if(v.begin(), v.end(), [limit](double x) { return x > limit || x < -limit; });
}
