// Indexed map: a scatter out[perm[i]] = x[i] through a permutation, int, vector arguments.
#include <vector>

// regrapht: n = 1<<22; perm[n] in ~ permutation; x[n] in ~ int(-1000000, 1000000); out[n] out
void scatter_i32(int n, const std::vector<int>& perm, const std::vector<int>& x,
                 std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        out[perm[i]] = x[i];
    }
}
