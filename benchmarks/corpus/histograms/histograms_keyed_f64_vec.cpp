// Histogram: per-key sums of double values (scatter-add by an integer key in [0, 4096)) added to
// the existing sums; vector arguments.
#include <vector>

// regrapht: n = 1<<24; keys[n] in ~ int(0, 4095); vals[n] in ~ uniform(-1, 1)
// regrapht: sums[4096] inout ~ uniform(-1, 1)
void scatter_add_keys(const std::vector<int>& keys, const std::vector<double>& vals,
                      std::vector<double>& sums) {
    const int n = static_cast<int>(keys.size());
    for (int i = 0; i < n; ++i) {
        sums[keys[i]] += vals[i];
    }
}
