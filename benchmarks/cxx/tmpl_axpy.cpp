// Generic axpy with an explicit instantiation and a float wrapper.
template <typename T>
void axpy(T a, const T* x, T* y, int n) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}

template void axpy<float>(float, const float*, float*, int);

void saxpy(float a, const float* x, float* y, int n) {
    axpy<float>(a, x, y, n);
}
