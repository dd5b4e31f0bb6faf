// Integer map: a saturating subtraction of two byte arrays, unsigned char, pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ int(0, 255); w[n] in ~ int(0, 255); y[n] out
void satsub_map(int n, const unsigned char* x, const unsigned char* w, unsigned char* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = x[i] > w[i] ? (unsigned char)(x[i] - w[i]) : (unsigned char)0;
    }
}
