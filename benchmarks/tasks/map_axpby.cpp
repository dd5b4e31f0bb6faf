// Elementwise map: y = a*x + b*y (in place).
// regrapht: n = 1<<24; a = 1.5; b = -0.75; x[n] in; y[n] inout
void axpby(int n, float a, const float* x, float b, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + b * y[i];
    }
}
