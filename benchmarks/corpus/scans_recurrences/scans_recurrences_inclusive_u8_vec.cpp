// Scan: inclusive prefix sum of unsigned char values into unsigned int; vector arguments.
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ int(0, 255); out[n] out
void inclusive_u8(const std::vector<unsigned char>& x, std::vector<unsigned int>& out) {
    const int n = static_cast<int>(x.size());
    unsigned int running = 0u;
    for (int i = 0; i < n; ++i) {
        running += x[i];
        out[i] = running;
    }
}
