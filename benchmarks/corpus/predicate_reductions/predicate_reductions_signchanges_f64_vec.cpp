// Predicate reduction: the number of sign changes between neighbours of double values; vector
// arguments.
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ uniform(-1, 1)
int signchanges_f64(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    int changes = 0;
    for (int i = 1; i < n; ++i) {
        bool a = x[i - 1] < 0;
        bool b = x[i] < 0;
        if (a != b) changes++;
    }
    return changes;
}
