// First-order IIR filter y[i] = a*y[i-1] + (1-a)*x[i]: a linear recurrence. The map
// rewriter refuses it (loop-carried dependence through y); the linear-recurrence rewriter
// scans the affine maps y -> a*y + (1-a)*x[i] with CUB.
// regrapht: n = 1<<24; a = 0.9; x[n] in; y[n] out
void iir1(int n, float a, const float* x, float* y) {
    if (n <= 0) return;
    y[0] = x[0];
    for (int i = 1; i < n; ++i) {
        y[i] = a * y[i - 1] + (1.0f - a) * x[i];
    }
}
