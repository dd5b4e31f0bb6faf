// Reduction: count the elements above a threshold (integer, compared exactly).
// regrapht: n = 1<<25; t = 0.25; x[n] in
long long count_above(int n, float t, const float* x) {
    long long c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) {
            c++;
        }
    }
    return c;
}
