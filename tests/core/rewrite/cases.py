"""Sequential references the rewriters are tested on, written the way people write them."""

from __future__ import annotations

from regrapht_core.contracts.task import ArgSpec, Distribution, ParamKind, Role, SizeBinding, Task

__all__ = [
    "DOT",
    "EARLY_BREAK",
    "ELEMENTWISE_HELPER",
    "HISTOGRAM",
    "MATRIX_ADD",
    "MATVEC",
    "MAX_REDUCTION",
    "PREFIX_SUM",
    "RUNNING_PRODUCT",
    "SAXPY",
    "STENCIL",
    "SUM",
    "VECTOR_ADD",
    "make_task",
]

_SIZES: tuple[SizeBinding, ...] = ({"n": 1}, {"n": 7}, {"n": 257}, {"n": 1000})
_SIZES_2D: tuple[SizeBinding, ...] = ({"n": 1, "m": 1}, {"n": 5, "m": 33}, {"n": 37, "m": 3})


def _scalar(name: str, ctype: str = "int", value: str | None = None) -> ArgSpec:
    return ArgSpec(name, ParamKind.SCALAR, ctype, value=value or name)


def _pointer(name: str, role: Role = Role.IN, length: str = "n", ctype: str = "float") -> ArgSpec:
    return ArgSpec(name, ParamKind.POINTER, ctype, role, length=length)


def make_task(
    name: str,
    source: str,
    signature: str,
    args: tuple[ArgSpec, ...],
    *,
    returns: str = "void",
    sizes: tuple[SizeBinding, ...] = _SIZES,
) -> Task:
    return Task(
        name=name,
        source=source,
        entry=name,
        signature=signature,
        args=args,
        correctness_sizes=sizes,
        timing_size=sizes[-1],
        returns=returns,
    )


SAXPY = make_task(
    "saxpy",
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n",
    "void saxpy(int n, float a, const float* x, float* y)",
    (_scalar("n"), _scalar("a", "float", "2.5"), _pointer("x"), _pointer("y", Role.INOUT)),
)

VECTOR_ADD = make_task(
    "vector_add",
    "void vector_add(const float *a, const float *b, float *c, int n)\n{\n"
    "    int i;\n"
    "    for (i = 0; i < n; i++) {\n"
    "        c[i] = a[i] + b[i];\n"
    "    }\n}\n",
    "void vector_add(const float *a, const float *b, float *c, int n)",
    (_pointer("a"), _pointer("b"), _pointer("c", Role.OUT), _scalar("n")),
)

ELEMENTWISE_HELPER = make_task(
    "gelu",
    "#include <cmath>\n\n"
    "static inline float cube(float v) { return v * v * v; }\n\n"
    "static float gelu_one(float v) {\n"
    "  const float k = 0.7978845608f;\n"
    "  return 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * cube(v))));\n}\n\n"
    "void gelu(const float* x, float* y, int n) {\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    float v = x[i];\n"
    "    float g = gelu_one(v);\n"
    "    y[i] = std::max(g, -1.0f);  // clamp\n"
    "  }\n}\n",
    "void gelu(const float* x, float* y, int n)",
    (_pointer("x"), _pointer("y", Role.OUT), _scalar("n")),
)

MATRIX_ADD = make_task(
    "matrix_add",
    "void matrix_add(int n, int m, const float* A, const float* B, float* C) {\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    for (int j = 0; j < m; ++j) {\n"
    "      C[i * m + j] = A[i * m + j] + B[i * m + j];\n"
    "    }\n"
    "  }\n}\n",
    "void matrix_add(int n, int m, const float* A, const float* B, float* C)",
    (
        _scalar("n"),
        _scalar("m"),
        _pointer("A", length="n * m"),
        _pointer("B", length="n * m"),
        _pointer("C", Role.OUT, "n * m"),
    ),
    sizes=_SIZES_2D,
)

MATVEC = make_task(
    "matvec",
    "void matvec(int n, int m, const float* A, const float* x, float* y) {\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    float acc = 0.0f;\n"
    "    for (int j = 0; j < m; ++j) acc += A[i * m + j] * x[j];\n"
    "    y[i] = acc;\n"
    "  }\n}\n",
    "void matvec(int n, int m, const float* A, const float* x, float* y)",
    (
        _scalar("n"),
        _scalar("m"),
        _pointer("A", length="n * m"),
        _pointer("x", length="m"),
        _pointer("y", Role.OUT, "n"),
    ),
    sizes=_SIZES_2D,
)

STENCIL = make_task(
    "stencil",
    "void stencil(const float* in, float* out, int n) {\n"
    "  for (int i = 1; i < n - 1; ++i) {\n"
    "    out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;\n"
    "  }\n}\n",
    "void stencil(const float* in, float* out, int n)",
    (_pointer("in"), _pointer("out", Role.OUT), _scalar("n")),
)

HISTOGRAM = make_task(
    "histogram",
    "void histogram(const int* x, int n, int* h, int bins) {\n"
    "  for (int i = 0; i < n; ++i) h[x[i]]++;\n}\n",
    "void histogram(const int* x, int n, int* h, int bins)",
    (
        ArgSpec("x", ParamKind.POINTER, "int", length="n", dist=Distribution("int", 0, 15)),
        _scalar("n"),
        _pointer("h", Role.INOUT, "bins", "int"),
        _scalar("bins", value="16"),
    ),
    sizes=({"n": 1, "bins": 16}, {"n": 1000, "bins": 16}),
)

PREFIX_SUM = make_task(
    "prefix_sum",
    "void prefix_sum(const float* x, float* out, int n) {\n"
    "  if (n == 0) return;\n"
    "  out[0] = x[0];\n"
    "  for (int i = 1; i < n; ++i) out[i] = out[i - 1] + x[i];\n}\n",
    "void prefix_sum(const float* x, float* out, int n)",
    (_pointer("x"), _pointer("out", Role.OUT), _scalar("n")),
)

RUNNING_PRODUCT = make_task(
    "running_product",
    "void running_product(const float* x, float* out, int n) {\n"
    "  if (n == 0) return;\n"
    "  out[0] = x[0];\n"
    "  for (int i = 1; i < n; ++i) out[i] = out[i - 1] * x[i];\n}\n",
    "void running_product(const float* x, float* out, int n)",
    (_pointer("x"), _pointer("out", Role.OUT), _scalar("n")),
)
"""Loop-carried through a product by data: no rewriter takes it (a prefix sum now has one)."""

SUM = make_task(
    "sum",
    "float sum(const float* x, int n) {\n"
    "  float s = 0.0f;\n"
    "  for (int i = 0; i < n; ++i) s += x[i];\n"
    "  return s;\n}\n",
    "float sum(const float* x, int n)",
    (_pointer("x"), _scalar("n")),
    returns="float",
)

DOT = make_task(
    "dot",
    "double dot(const double* a, const double* b, long n) {\n"
    "  double acc = 0.0;\n"
    "  for (long i = 0; i < n; i++) {\n"
    "    const double p = a[i] * b[i];\n"
    "    acc = acc + p;\n"
    "  }\n"
    "  return acc;\n}\n",
    "double dot(const double* a, const double* b, long n)",
    (_pointer("a", ctype="double"), _pointer("b", ctype="double"), _scalar("n", "long")),
    returns="double",
)

MAX_REDUCTION = make_task(
    "max_value",
    "float max_value(const float* x, int n) {\n"
    "  float m = x[0];\n"
    "  for (int i = 1; i < n; ++i) {\n"
    "    if (x[i] > m) m = x[i];\n"
    "  }\n"
    "  return m;\n}\n",
    "float max_value(const float* x, int n)",
    (_pointer("x"), _scalar("n")),
    returns="float",
)

FILTERED_MAX = make_task(
    "largest_below",
    "float largest_below(const float* x, int n, float cap) {\n"
    "  float m = -1.0e30f;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    if (x[i] < cap && x[i] > m) m = x[i];\n"
    "  }\n"
    "  return m;\n}\n",
    "float largest_below(const float* x, int n, float cap)",
    (_pointer("x"), _scalar("n"), _scalar("cap", "float", "0.25")),
    returns="float",
)

EARLY_BREAK = make_task(
    "find_first",
    "int find_first(const float* x, int n, float t) {\n"
    "  int found = -1;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    if (x[i] > t) { found = i; break; }\n"
    "  }\n"
    "  return found;\n}\n",
    "int find_first(const float* x, int n, float t)",
    (_pointer("x"), _scalar("n"), _scalar("t", "float", "0.5")),
    returns="int",
)
