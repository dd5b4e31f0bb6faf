// 2-D copy with padded rows: a rows x cols float array into rows of pitch elements, zero-filling
// each row's padding; pitch is cols rounded up to a multiple of 64.

// regrapht: rows = 8192; cols = 8000; pitch = (cols + 63) / 64 * 64
// regrapht: src[rows*cols] in ~ uniform(-1, 1); dst[rows*pitch] out
void copy_to_pitched(int rows, int cols, int pitch, const float* src, float* dst) {
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            dst[i * pitch + j] = src[i * cols + j];
        }
        for (int j = cols; j < pitch; ++j) {
            dst[i * pitch + j] = 0.0f;
        }
    }
}
