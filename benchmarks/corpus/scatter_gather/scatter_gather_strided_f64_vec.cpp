// Indexed map: a strided gather out[i] = x[i * stride], double, vector arguments.
#include <vector>

// regrapht: n = 1<<23; stride = 4; x[n*stride] in ~ uniform(-100, 100); out[n] out
void strided_f64(int n, int stride, const std::vector<double>& x, std::vector<double>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i * stride];
    }
}
