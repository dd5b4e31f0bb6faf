// Reduction: the minimum of int values, returned; vector arguments.
#include <algorithm>
#include <limits>
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ int(-1000000, 1000000)
int min_i32(const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    int s = std::numeric_limits<int>::max();
    for (int i = 0; i < n; ++i) {
        s = std::min(s, x[i]);
    }
    return s;
}
