#include <vector>
#include <cmath>
#include <cstddef>

// Square root of |x|, appended to an output the function clears first.
void collect_roots(const std::vector<double>& x, std::vector<double>& out) {
    out.clear();
    out.reserve(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        out.push_back(std::sqrt(std::fabs(x[i])));
    }
}
