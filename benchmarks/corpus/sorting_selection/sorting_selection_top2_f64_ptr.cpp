// Selection: the two largest double values (top-2) in one pass; pointer arguments.
#include <cfloat>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 1); top[2] out
void top2_f64(int n, const double* x, double* top) {
    double first = -DBL_MAX;
    double second = -DBL_MAX;
    for (int i = 0; i < n; ++i) {
        if (x[i] > first) {
            second = first;
            first = x[i];
        } else if (x[i] > second) {
            second = x[i];
        }
    }
    top[0] = first;
    top[1] = second;
}
