// Elementwise map over three inputs: d = a*b + c.
// regrapht: n = 1<<24; a[n] in; b[n] in; c[n] in; d[n] out
void fma3(int n, const float* a, const float* b, const float* c, float* d) {
    for (int i = 0; i < n; ++i) {
        d[i] = a[i] * b[i] + c[i];
    }
}
