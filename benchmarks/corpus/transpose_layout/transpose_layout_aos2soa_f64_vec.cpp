// Layout change: split interleaved xyz triples into three arrays (AoS to SoA); double.
#include <vector>

// regrapht: n = 1<<23; xyz[3*n] in ~ uniform(-1, 1); x[n] out; y[n] out; z[n] out
void aos_to_soa(int n, const std::vector<double>& xyz, std::vector<double>& x,
                std::vector<double>& y, std::vector<double>& z) {
    for (int i = 0; i < n; ++i) {
        x[i] = xyz[3 * i];
        y[i] = xyz[3 * i + 1];
        z[i] = xyz[3 * i + 2];
    }
}
