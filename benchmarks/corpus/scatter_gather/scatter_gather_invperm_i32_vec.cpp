// Indexed map: the inverse of a permutation, inv[perm[i]] = i, int, vector arguments.
#include <vector>

// regrapht: n = 1<<24; perm[n] in ~ permutation; inv[n] out
void invperm(int n, const std::vector<int>& perm, std::vector<int>& inv) {
    for (int i = 0; i < n; ++i) {
        inv[perm[i]] = i;
    }
}
