// Arg-reduction: the index of the largest magnitude |x| (first on ties) of float values; pointer
// arguments.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
int argmaxabs_f32(int n, const float* x) {
    if (n <= 0) return -1;
    float best = fabsf(x[0]);
    int arg = 0;
    for (int i = 1; i < n; ++i) {
        float a = fabsf(x[i]);
        if (a > best) {
            best = a;
            arg = i;
        }
    }
    return arg;
}
