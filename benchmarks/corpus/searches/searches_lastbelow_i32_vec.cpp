// Search: index of the last element below a threshold, scanning from the end in sorted int data, or
// -1; vector arguments.
#include <vector>

// regrapht: n = 1<<25; t = 250000; x[n] in ~ sorted(0, 1000000)
int lastbelow_i32(int t, const std::vector<int>& x) {
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
