void scale_ptr(float* data, int n, float k) {
    float* p = data;
    for (int i = 0; i < n; ++i) *p++ *= k;
}
