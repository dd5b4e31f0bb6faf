// Elementwise map: ReLU. Memory-bound; one compare per element, so end-to-end timing is
// dominated by the transfers (an honest "GPU may lose" case).
// regrapht: n = 1<<24; x[n] in; y[n] out
void relu(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    }
}
