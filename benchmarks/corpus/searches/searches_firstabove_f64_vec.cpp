// Search: index of the first element above a threshold in sorted double data, or -1; vector
// arguments.
#include <vector>

// regrapht: n = 1<<25; t = 0.75; x[n] in ~ sorted(0, 1)
int firstabove_f64(double t, const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    int found = -1;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) {
            found = i;
            break;
        }
    }
    return found;
}
