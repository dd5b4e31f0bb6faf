// Indexed map: a strided gather out[i] = x[i * stride], float, pointer arguments.

// regrapht: n = 1<<23; stride = 4; x[n*stride] in ~ uniform(-100, 100); out[n] out
void strided_f32(int n, int stride, const float* x, float* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i * stride];
    }
}
