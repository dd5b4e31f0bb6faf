// Layout change: interleave three coordinate arrays into xyz triples (SoA to AoS); double.

// regrapht: n = 1<<23; x[n] in ~ uniform(-1, 1); y[n] in ~ uniform(-1, 1); z[n] in ~ uniform(-1, 1)
// regrapht: xyz[3*n] out
void soa_to_aos(int n, const double* x, const double* y, const double* z, double* xyz) {
    for (int i = 0; i < n; ++i) {
        xyz[3 * i] = x[i];
        xyz[3 * i + 1] = y[i];
        xyz[3 * i + 2] = z[i];
    }
}
