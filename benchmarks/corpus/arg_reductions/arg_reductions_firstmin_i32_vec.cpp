// Arg-reduction: the first index of the minimum, by a min pass and a search pass of int values;
// vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(-100, 100)
int firstmin_i32(const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return -1;
    int lo = x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < lo) lo = x[i];
    }
    for (int i = 0; i < n; ++i) {
        if (x[i] == lo) return i;
    }
    return -1;
}
