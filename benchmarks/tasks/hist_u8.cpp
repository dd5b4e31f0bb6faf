// Histogram of bytes: 256 bins, counts added to the existing ones. The bin index is data
// (hist[data[i]]), so iterations collide: the map rewriter refuses it; the shared-update
// rewriters count into per-block bins (privatization) or with plain atomicAdd.
// regrapht: n = 1<<24; data[n] in ~ int(0, 255); hist[256] inout ~ int(0, 100)
void histogram_u8(int n, const unsigned char* data, unsigned int* hist) {
    for (int i = 0; i < n; ++i) {
        hist[data[i]]++;
    }
}
