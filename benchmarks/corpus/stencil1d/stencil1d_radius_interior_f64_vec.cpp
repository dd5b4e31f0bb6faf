// 1-D stencil: radius r given at run time, 2r+1 weights from an array, over the interior i in [r, n
// - r); double.
#include <vector>

// regrapht: n = 1<<22; r = 4; w[2*r+1] in ~ uniform(-0.5, 0.5); x[n] in ~ uniform(-1, 1)
// regrapht: y[n] inout
void weighted_stencil(int r, const std::vector<double>& w, const std::vector<double>& x,
                      std::vector<double>& y) {
    const int n = static_cast<int>(x.size());
    for (int i = r; i < n - r; ++i) {
        double acc = 0.0;
        for (int k = -r; k <= r; ++k) {
            acc += w[k + r] * x[i + k];
        }
        y[i] = acc;
    }
}
