"""The object check on small objects compiled as the pipeline compiles candidates.

Each refused source is as small as the rule it shows; the honest one carries what the
headers generate (weak template instantiations, the ``<iostream>`` initializer, exception
machinery, libgcc's complex arithmetic, the host body of a ``__device__`` function) so a
rule that is too wide fails here first.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.errors import ConfigError
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.device import DEFAULT_ARCH
from regrapht_core.verify.objects import (
    CANDIDATE_DEFINES,
    ObjectTools,
    inspect_object,
    library_names,
)

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
needs_binutils = pytest.mark.skipif(shutil.which("readelf") is None, reason="needs binutils")

HONEST = """
#include <cuda_runtime.h>
#include <iostream>
#include <vector>
#include <algorithm>
#include <stdexcept>
#include <cmath>
#include <complex>

__device__ float square(float v) { return v * v; }

__global__ void kernel(int n, float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = square(x[i]);
}

template <typename T> T largest(const std::vector<T>& v) {
  return *std::max_element(v.begin(), v.end());
}

float f(int n, float* x) {
  if (n < 0) throw std::runtime_error("negative size");
  std::vector<float> host(x, x + n);
  float* device = nullptr;
  cudaMalloc(&device, n * sizeof(float));
  cudaMemcpy(device, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  kernel<<<(n + 255) / 256, 256>>>(n, device);
  cudaMemcpy(x, device, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(device);
  std::complex<float> z(host[0], x[0]);
  z = z * std::complex<float>(x[n - 1], host[n - 1]);
  return std::sqrt(largest(host)) + std::abs(z);
}
"""


@pytest.fixture(scope="module")
def compiler(tmp_path_factory: pytest.TempPathFactory) -> Compiler:
    return Compiler(tmp_path_factory.mktemp("objects"), DEFAULT_ARCH)


def _inspect(compiler: Compiler, source: str, entry: str = "f") -> str | None:
    built = compiler.cuda_object("#include <cuda_runtime.h>\n" + source, defines=CANDIDATE_DEFINES)
    assert built.ok and built.path is not None, built.log
    return inspect_object(built.path, entry=entry)


@needs_nvcc
def test_an_honest_object_passes(compiler: Compiler) -> None:
    assert _inspect(compiler, HONEST) is None


@needs_nvcc
def test_fortified_twins_of_allowed_basics_pass(compiler: Compiler) -> None:
    """Where the host compiler fortifies by default (the GPU machine's does), CUB's
    ``snprintf`` arrives as ``__snprintf_chk``: the same function, with a bounds check."""
    source = (
        "#include <cstdio>\n#include <cstring>\n"
        "void f(char* out, const char* in, int n) {\n"
        '  char note[16];\n  std::snprintf(note, sizeof note, "%d", n);\n'
        "  std::memcpy(out, in, static_cast<size_t>(n));\n  out[0] = note[0];\n}\n"
    )
    built = compiler.cuda_object(
        "#include <cuda_runtime.h>\n" + source,
        defines=(*CANDIDATE_DEFINES, "_FORTIFY_SOURCE=2"),
    )
    assert built.ok and built.path is not None, built.log
    assert inspect_object(built.path, entry="f") is None


@needs_nvcc
@pytest.mark.parametrize(
    ("source", "said"),
    [
        pytest.param(
            "const cudaError_t warm = cudaFree(nullptr);\n"
            "void f(int* p) { *p = static_cast<int>(warm); }",
            "runs before main",
            id="dynamic-initializer",
        ),
        pytest.param(
            "__attribute__((constructor)) static void warm_up() { cudaFree(nullptr); }\n"
            "void f() {}",
            "`warm_up()` runs before main",
            id="constructor-attribute",
        ),
        pytest.param(
            "__attribute__((destructor)) static void bye() { cudaFree(nullptr); }\nvoid f() {}",
            "runs code at exit",
            id="destructor-attribute",
        ),
        pytest.param(
            'extern "C" int atexit(void (*)(void)) noexcept;\n'
            "static void bye() { cudaFree(nullptr); }\nvoid f() { atexit(bye); }",
            "registers work with `atexit`",
            id="atexit",
        ),
        pytest.param(
            "#include <cstdlib>\nvoid f() { std::exit(0); }",
            "calls `exit`",
            id="exit",
        ),
        pytest.param(
            "thread_local int calls = 0;\nvoid f(int* p) { *p = ++calls; }",
            "thread-local",
            id="tls",
        ),
    ],
)
def test_code_outside_the_call_is_refused(compiler: Compiler, source: str, said: str) -> None:
    refused = _inspect(compiler, source)
    assert refused is not None
    assert said in refused
    assert refused.startswith("object check: ")


@needs_nvcc
@pytest.mark.parametrize(
    ("source", "said"),
    [
        pytest.param(
            '#include <cstddef>\nextern "C" void* malloc(size_t) noexcept { return nullptr; }\n'
            "void f() {}",
            "defines `malloc`",
            id="malloc",
        ),
        pytest.param(
            'extern "C" cudaError_t __wrap_cudaMalloc(void** p, size_t) { *p = nullptr; '
            "return cudaSuccess; }\nvoid f() {}",
            "defines `__wrap_cudaMalloc`",
            id="wrap",
        ),
        pytest.param(
            "#include <cstdlib>\n"
            "void* operator new(std::size_t n) { return std::malloc(n); }\nvoid f() {}",
            "operator new",
            id="operator-new",
        ),
        pytest.param(
            'extern "C" int sched_yield() noexcept { return 0; }\nvoid f() {}',
            "defines `sched_yield`",
            id="sched-yield",
        ),
    ],
)
def test_runtime_names_may_not_be_defined(compiler: Compiler, source: str, said: str) -> None:
    refused = _inspect(compiler, source)
    assert refused is not None
    assert said in refused


@needs_nvcc
@pytest.mark.parametrize(
    ("source", "said"),
    [
        pytest.param(
            '#include <cstdlib>\nint f() { return std::getenv("SEED") != nullptr; }',
            "calls `getenv`",
            id="getenv",
        ),
        pytest.param(
            'extern "C" int cuInit(unsigned);\nint f() { return cuInit(0); }',
            "driver API",
            id="driver",
        ),
        pytest.param(
            "int helper(int);\nint f(int x) { return helper(x); }",
            "calls `helper(int)`",
            id="outside-code",
        ),
        pytest.param(
            "void f(cudaGraphExec_t g) { cudaGraphLaunch(g, 0); }",
            "calls `cudaGraphLaunch`",
            id="graph",
        ),
        pytest.param(
            'extern "C" cudaError_t cudaLaunchKernel_ptsz(const void*, dim3, dim3, void**, '
            "size_t, cudaStream_t);\n"
            "void f(const void* k) { cudaLaunchKernel_ptsz(k, 1, 1, nullptr, 0, 0); }",
            "per-thread",
            id="per-thread-launch",
        ),
    ],
)
def test_imports_off_the_allow_list_are_refused(compiler: Compiler, source: str, said: str) -> None:
    refused = _inspect(compiler, source)
    assert refused is not None
    assert said in refused


@needs_nvcc
@pytest.mark.parametrize(
    ("source", "said"),
    [
        pytest.param('void f() { asm volatile("syscall"); }', "`syscall`", id="syscall"),
        pytest.param(
            "unsigned long long f() { return __builtin_ia32_rdtsc(); }", "`rdtsc`", id="rdtsc"
        ),
    ],
)
def test_system_calls_and_clock_reads_are_refused(
    compiler: Compiler, source: str, said: str
) -> None:
    refused = _inspect(compiler, source)
    assert refused is not None
    assert said in refused


@needs_nvcc
def test_the_entry_must_be_defined(compiler: Compiler) -> None:
    refused = _inspect(compiler, "void g() {}", entry="f")
    assert refused is not None
    assert "entry `f`" in refused


@needs_binutils
def test_an_unreadable_object_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.o"
    junk.write_bytes(b"\x7fELF" + bytes(range(256)) * 4)
    refused = inspect_object(junk, entry="f")
    assert refused is not None
    assert "could not be read" in refused


def test_a_missing_tool_is_a_configuration_error(tmp_path: Path) -> None:
    obj = tmp_path / "unit.o"
    obj.write_bytes(b"")
    with pytest.raises(ConfigError, match="binutils"):
        inspect_object(obj, entry="f", tools=ObjectTools(readelf=str(tmp_path / "no-readelf")))


@needs_binutils
def test_library_names_are_read_once() -> None:
    tools = ObjectTools()
    names = library_names(tools)
    assert names is library_names(tools)
    assert {"malloc", "strtof", "sched_yield"} <= names.every
    assert "expf" in names.math
    assert "__cxa_throw" in names.cxx
