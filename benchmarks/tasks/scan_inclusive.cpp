// Inclusive prefix sum (64-bit integers, exact). Every element depends on the previous
// one: the map rewriter refuses it; the running-total rewriter (library_call) writes the
// terms in a kernel and scans them with CUB.
// regrapht: n = 1<<24; x[n] in ~ int(-1000, 1000); out[n] out
void inclusive_scan(int n, const int* x, long long* out) {
    long long running = 0;
    for (int i = 0; i < n; ++i) {
        running += x[i];
        out[i] = running;
    }
}
