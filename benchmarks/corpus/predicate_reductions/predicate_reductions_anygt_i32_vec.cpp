// Predicate reduction: whether any element is above a threshold, from a count of int values; vector
// arguments.
#include <vector>

// regrapht: n = 1<<25; t = 100; x[n] in ~ int(-1000, 1000)
bool anygt_i32(int t, const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    int c = 0;
    for (int i = 0; i < n; ++i) {
        c += x[i] > t ? 1 : 0;
    }
    return c > 0;
}
