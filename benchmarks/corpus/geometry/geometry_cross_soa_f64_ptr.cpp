// Geometry map: cross products of 3-D vectors stored as separate component arrays, double, pointer
// arguments.

// regrapht: n = 1<<22; ax[n] in ~ uniform(-10, 10); ay[n] in ~ uniform(-10, 10)
// regrapht: az[n] in ~ uniform(-10, 10); bx[n] in ~ uniform(-10, 10); by[n] in ~ uniform(-10, 10)
// regrapht: bz[n] in ~ uniform(-10, 10); cx[n] out; cy[n] out; cz[n] out
void cross_soa_points(int n, const double* ax, const double* ay, const double* az,
                      const double* bx, const double* by, const double* bz, double* cx,
                      double* cy, double* cz) {
    for (int i = 0; i < n; ++i) {
        cx[i] = ay[i] * bz[i] - az[i] * by[i];
        cy[i] = az[i] * bx[i] - ax[i] * bz[i];
        cz[i] = ax[i] * by[i] - ay[i] * bx[i];
    }
}
