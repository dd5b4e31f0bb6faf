// Indexed map: a gather out[i] = x[idx[i]] through a permutation, double, vector arguments.
#include <vector>

// regrapht: n = 1<<22; idx[n] in ~ permutation; x[n] in ~ uniform(-100, 100); out[n] out
void gather_f64(int n, const std::vector<int>& idx, const std::vector<double>& x,
                std::vector<double>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[idx[i]];
    }
}
