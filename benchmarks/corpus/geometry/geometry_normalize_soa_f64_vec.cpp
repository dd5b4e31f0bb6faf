// Geometry map: unit vectors of 3-D vectors stored as separate x, y, z arrays (zero stays zero),
// double, vector arguments.
#include <cmath>
#include <vector>

// regrapht: n = 1<<23; x[n] in ~ uniform(-10, 10); y[n] in ~ uniform(-10, 10)
// regrapht: z[n] in ~ uniform(-10, 10); ux[n] out; uy[n] out; uz[n] out
void normalize_soa_points(int n, const std::vector<double>& x, const std::vector<double>& y,
                          const std::vector<double>& z, std::vector<double>& ux,
                          std::vector<double>& uy, std::vector<double>& uz) {
    for (int i = 0; i < n; ++i) {
        double len = std::sqrt(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
        double inv = len > 0.0 ? 1.0 / len : 0.0;
        ux[i] = x[i] * inv;
        uy[i] = y[i] * inv;
        uz[i] = z[i] * inv;
    }
}
