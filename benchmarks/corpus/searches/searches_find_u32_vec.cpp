// Search: index of the first element equal to a key in unsorted unsigned int data, or -1; vector
// arguments.
#include <vector>

// regrapht: n = 1<<25; key = 4321987; x[n] in ~ int(0, 32000000)
int find_u32(unsigned int key, const std::vector<unsigned int>& x) {
    const int n = static_cast<int>(x.size());
    for (int i = 0; i < n; ++i) {
        if (x[i] == key) return i;
    }
    return -1;
}
