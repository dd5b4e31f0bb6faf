// Search: index of the last element below a threshold, scanning from the end in sorted float data,
// or -1; vector arguments.
#include <vector>

// regrapht: n = 1<<25; t = 0.25; x[n] in ~ sorted(0, 1)
int lastbelow_f32(float t, const std::vector<float>& x) {
    const int n = static_cast<int>(x.size());
    int found = -1;
    for (int i = n - 1; i >= 0; --i) {
        if (x[i] < t) {
            found = i;
            break;
        }
    }
    return found;
}
