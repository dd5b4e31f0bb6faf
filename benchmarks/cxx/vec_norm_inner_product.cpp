#include <cmath>
#include <numeric>
#include <vector>

// Euclidean norm through std::inner_product of the vector with itself.
double norm2(const std::vector<double>& v) {
    const double squares = std::inner_product(v.begin(), v.end(), v.begin(), 0.0);
    return std::sqrt(squares);
}
