// 2-D copy with padded rows: a rows x cols unsigned char array into rows of pitch elements,
// zero-filling each row's padding; pitch is cols rounded up to a multiple of 64.
#include <vector>

// regrapht: rows = 8192; cols = 8000; pitch = (cols + 63) / 64 * 64; src[rows*cols] in
// regrapht: dst[rows*pitch] out
void copy_to_pitched(int rows, int cols, int pitch, const std::vector<unsigned char>& src,
                     std::vector<unsigned char>& dst) {
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            dst[i * pitch + j] = src[i * cols + j];
        }
        for (int j = cols; j < pitch; ++j) {
            dst[i * pitch + j] = 0;
        }
    }
}
