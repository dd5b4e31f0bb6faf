// Integer map: a clamp of bytes into the video range [lo, hi], unsigned char, pointer arguments.

// regrapht: n = 1<<24; lo = 16; hi = 235; x[n] in ~ int(0, 255); y[n] out
void clamp_video_map(int n, unsigned char lo, unsigned char hi, const unsigned char* x,
                     unsigned char* y) {
    for (int i = 0; i < n; ++i) {
        unsigned char v = x[i];
        y[i] = v < lo ? lo : (v > hi ? hi : v);
    }
}
