// Reduction: the dot product of two arrays of int values, accumulated in long long, written to
// out[0]; vector arguments.
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000); y[n] in ~ int(-1000, 1000); out[1] out
void dot_i32(const std::vector<int>& x, const std::vector<int>& y, std::vector<long long>& out) {
    const int n = static_cast<int>(x.size());
    long long s = 0LL;
    for (int i = 0; i < n; ++i) {
        s += (long long)x[i] * y[i];
    }
    out[0] = s;
}
