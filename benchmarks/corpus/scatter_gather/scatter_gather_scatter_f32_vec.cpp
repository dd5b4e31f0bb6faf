// Indexed map: a scatter out[perm[i]] = x[i] through a permutation, float, vector arguments.
#include <vector>

// regrapht: n = 1<<22; perm[n] in ~ permutation; x[n] in ~ uniform(-100, 100); out[n] out
void scatter_f32(int n, const std::vector<int>& perm, const std::vector<float>& x,
                 std::vector<float>& out) {
    for (int i = 0; i < n; ++i) {
        out[perm[i]] = x[i];
    }
}
