// 2-D copy with padded rows: a rows x cols double array out of rows of pitch elements (padding
// skipped) into a dense array; pitch is cols rounded up to a multiple of 64.

// regrapht: rows = 4096; cols = 4000; pitch = (cols + 63) / 64 * 64
// regrapht: src[rows*pitch] in ~ uniform(-1, 1); dst[rows*cols] out
void copy_from_pitched(int rows, int cols, int pitch, const double* src, double* dst) {
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            dst[i * cols + j] = src[i * pitch + j];
        }
    }
}
