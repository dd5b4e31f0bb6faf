// Arg-reduction: the index of the largest magnitude |x| (first on ties) of double values; vector
// arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
int argmaxabs_f64(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return -1;
    double best = std::fabs(x[0]);
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        double a = std::fabs(x[i]);
        if (a > best) {
            best = a;
            arg = i;
        }
    }
    return arg;
}
