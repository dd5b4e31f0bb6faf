// A half-edited file: the loop header is missing its closing parenthesis.
void scale(int n, float s, float* v) {
    for (int i = 0; i < n; ++i {
        v[i] *= s;
    }
}
