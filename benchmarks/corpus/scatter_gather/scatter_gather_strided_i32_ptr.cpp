// Indexed map: a strided gather out[i] = x[i * stride], int, pointer arguments.

// regrapht: n = 1<<23; stride = 4; x[n*stride] in ~ int(-1000000, 1000000); out[n] out
void strided_i32(int n, int stride, const int* x, int* out) {
    for (int i = 0; i < n; ++i) {
        out[i] = x[i * stride];
    }
}
