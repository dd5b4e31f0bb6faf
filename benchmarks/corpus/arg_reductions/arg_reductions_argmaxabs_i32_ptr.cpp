// Arg-reduction: the index of the largest magnitude |x| (first on ties) of int values; pointer
// arguments.
#include <cstdlib>

// regrapht: n = 1<<24; x[n] in ~ int(-100, 100)
int argmaxabs_i32(int n, const int* x) {
    if (n <= 0) return -1;
    int best = std::abs(x[0]);
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        int a = std::abs(x[i]);
        if (a > best) {
            best = a;
            arg = i;
        }
    }
    return arg;
}
