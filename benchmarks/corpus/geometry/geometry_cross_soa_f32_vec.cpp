// Geometry map: cross products of 3-D vectors stored as separate component arrays, float, vector
// arguments.
#include <vector>

// regrapht: n = 1<<22; ax[n] in ~ uniform(-10, 10); ay[n] in ~ uniform(-10, 10)
// regrapht: az[n] in ~ uniform(-10, 10); bx[n] in ~ uniform(-10, 10); by[n] in ~ uniform(-10, 10)
// regrapht: bz[n] in ~ uniform(-10, 10); cx[n] out; cy[n] out; cz[n] out
void cross_soa_points(int n, const std::vector<float>& ax, const std::vector<float>& ay,
                      const std::vector<float>& az, const std::vector<float>& bx,
                      const std::vector<float>& by, const std::vector<float>& bz,
                      std::vector<float>& cx, std::vector<float>& cy, std::vector<float>& cz) {
    for (int i = 0; i < n; ++i) {
        cx[i] = ay[i] * bz[i] - az[i] * by[i];
        cy[i] = az[i] * bx[i] - ax[i] * bz[i];
        cz[i] = ax[i] * by[i] - ay[i] * bx[i];
    }
}
