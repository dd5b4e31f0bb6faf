// Sorting: the stable sorted position of each double element, by counting the smaller ones
// (O(n^2)); vector arguments.
#include <vector>

// regrapht: n = 8192; x[n] in ~ uniform(-1, 1); rank[n] out
void rank_f64(const std::vector<double>& x, std::vector<int>& rank) {
    const int n = static_cast<int>(x.size());
    for (int i = 0; i < n; ++i) {
        int r = 0;
        for (int j = 0; j < n; ++j) {
            if (x[j] < x[i] || (x[j] == x[i] && j < i)) r++;
        }
        rank[i] = r;
    }
}
