// Sorting: eight passes of odd-even transposition sort over double values in place (a partial
// sort); vector arguments.
#include <vector>

// regrapht: n = 1<<22; x[n] inout ~ uniform(-1, 1)
void odd_even_passes_f64(std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    const int passes = 8;
    for (int p = 0; p < passes; ++p) {
        for (int i = p % 2; i + 1 < n; i += 2) {
            if (x[i] > x[i + 1]) {
                double tmp = x[i];
                x[i] = x[i + 1];
                x[i + 1] = tmp;
            }
        }
    }
}
