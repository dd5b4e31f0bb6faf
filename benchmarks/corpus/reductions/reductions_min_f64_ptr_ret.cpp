// Reduction: the minimum of double values, returned; pointer arguments.
#include <cfloat>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 10)
double min_f64(int n, const double* x) {
    double s = DBL_MAX;
    for (int i = 0; i < n; ++i) {
        if (x[i] < s) s = x[i];
    }
    return s;
}
