// Selection: the largest int value strictly below a cap (top-1 under a bound); vector arguments.
#include <limits>
#include <vector>

// regrapht: n = 1<<24; cap = 500000; x[n] in ~ int(-1000000, 1000000)
int largest_below_i32(int cap, const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    int best = std::numeric_limits<int>::lowest();
    for (int i = 0; i < n; ++i) {
        if (x[i] < cap && x[i] > best) best = x[i];
    }
    return best;
}
