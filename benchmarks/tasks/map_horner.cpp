// Elementwise map: a degree-8 polynomial per element by Horner's rule, coefficients read
// from a small input array (read by every iteration).
#define DEGREE 8

// regrapht: n = 1<<24; c[9] in ~ uniform(-0.5, 0.5); x[n] in; y[n] out
void horner(int n, const float* c, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        float acc = c[DEGREE];
        for (int k = DEGREE - 1; k >= 0; --k) {
            acc = acc * v + c[k];
        }
        y[i] = acc;
    }
}
