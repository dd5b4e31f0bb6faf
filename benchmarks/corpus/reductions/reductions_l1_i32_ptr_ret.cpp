// Reduction: the L1 norm (sum of absolute values) of int values, accumulated in long long,
// returned; pointer arguments.
#include <cstdlib>

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000)
long long l1_i32(int n, const int* x) {
    long long s = 0LL;
    for (int i = 0; i < n; ++i) {
        s += std::abs(x[i]);
    }
    return s;
}
