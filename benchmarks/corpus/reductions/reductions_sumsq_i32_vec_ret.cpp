// Reduction: the sum of squares of int values, accumulated in long long, returned; vector
// arguments.
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000)
long long sumsq_i32(const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    long long s = 0LL;
    for (int i = 0; i < n; ++i) {
        s += (long long)x[i] * x[i];
    }
    return s;
}
