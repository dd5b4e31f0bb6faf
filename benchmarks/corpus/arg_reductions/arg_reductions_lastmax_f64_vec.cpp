// Arg-reduction: the last index of the maximum of double values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
int lastmax_f64(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return -1;
    double best = x[0];
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        if (x[i] >= best) {
            best = x[i];
            arg = i;
        }
    }
    return arg;
}
