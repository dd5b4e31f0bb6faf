#!/usr/bin/env bash
# Build xllamacpp with llama.cpp's CUDA backend from its PyPI source release, for the GPUs
# of this machine (or CUDA_ARCHITECTURES, e.g. 90-real), into OUTDIR.
#
#   python3 -m pip download --no-deps --no-binary=:all: -d SRC xllamacpp==VERSION   # anywhere
#   scripts/build-xllamacpp-cuda.sh SRC/xllamacpp-VERSION.tar.gz OUTDIR                # here
#
# Why: PyPI has xllamacpp's CPU wheel only; its CUDA wheels live on its own index, for
# CUDA 12, and the GPU machine has CUDA 13 and no network. With the model on the GPU an
# answer takes seconds instead of a minute (docs/models.md). Needs nvcc, cmake, ninja,
# cython and cuBLAS's headers and libraries (the toolkit's, or with REGRAPHT_PATCH_TOOLKIT=1
# the nvidia-cublas wheel's, copied into the toolkit for the build and removed after it).
# scripts/prepare-device-session.sh runs it with all of that in a throwaway venv.
#
# The CMake switches turn off what would need the network or a driver at build time:
# llguidance (a Rust crate fetched by cargo), BoringSSL (fetched by CMake; the binding's
# HTTP listener is loopback-only and unencrypted anyway), and CUDA virtual memory (links
# libcuda; without it llama.cpp allocates with cudaMalloc).
set -euo pipefail
SDIST=$(realpath "$1")
OUT=$(realpath -m "$2")
# The toolkit's root: CUDA_PATH, else /usr/local/cuda, else two levels above nvcc (which
# may be a wrapper script elsewhere, as /usr/local/bin/nvcc is on the dev VM).
if [ -n "${CUDA_PATH:-}" ]; then
    CUDA=$CUDA_PATH
elif [ -x /usr/local/cuda/bin/nvcc ]; then
    CUDA=/usr/local/cuda
else
    CUDA=$(dirname "$(dirname "$(command -v nvcc)")")
fi
ADDED=()
WORK=$(mktemp -d)
# What the build added to the toolkit goes again, so the machine compiles as it did before.
trap 'rm -rf "$WORK" "${ADDED[@]}"' EXIT
if [ ! -f "$CUDA/include/cublas_v2.h" ]; then
    if [ "${REGRAPHT_PATCH_TOOLKIT:-}" != 1 ]; then
        echo "no cuBLAS in $CUDA: install the toolkit's cuBLAS (libcublas-dev), or set" >&2
        echo "REGRAPHT_PATCH_TOOLKIT=1 to copy the nvidia-cublas wheel's into it" >&2
        exit 1
    fi
    wheel_root=$(python3 -c 'import nvidia, pathlib; print(next(p for p in (pathlib.Path(d) / s for d in nvidia.__path__ for s in ("cu13", "cublas")) if (p / "include/cublas_v2.h").exists()))')
    for header in "$wheel_root"/include/cublas*.h; do
        cp "$header" "$CUDA/include/" && ADDED+=("$CUDA/include/$(basename "$header")")
    done
    for lib in "$wheel_root"/lib/libcublas*.so.*; do
        link="$CUDA/lib64/$(basename "$lib" | sed 's/\.so\..*/.so/')"
        cp "$lib" "$CUDA/lib64/" && ln -sf "$(basename "$lib")" "$link"
        ADDED+=("$CUDA/lib64/$(basename "$lib")" "$link")
    done
fi
if [ ! -e "$CUDA/lib64/stubs/libcuda.so" ]; then
    # setup.py links -lcuda; an empty library of that name is enough at build time: the
    # driver's libcuda.so.1 is what loads at run time.
    [ -d "$CUDA/lib64/stubs" ] || ADDED+=("$CUDA/lib64/stubs")
    mkdir -p "$CUDA/lib64/stubs"
    printf 'void regrapht_build_stub(void) {}\n' >"$OUT.stub.c"
    cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$CUDA/lib64/stubs/libcuda.so" "$OUT.stub.c"
    ADDED+=("$CUDA/lib64/stubs/libcuda.so")
    rm -f "$OUT.stub.c"
fi
tar -C "$WORK" -xzf "$SDIST"
cd "$WORK"/xllamacpp-*
export XLLAMACPP_BUILD_CUDA=1 XLLAMACPP_RELEASE=1 CUDA_PATH="$CUDA"
export CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES:-native}
export NPROC=${NPROC:-$(nproc)}
export CMAKE_ARGS="-DLLAMA_LLGUIDANCE=OFF -DLLAMA_BUILD_BORINGSSL=OFF -DGGML_CUDA_NO_VMM=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
mkdir -p "$OUT"
python3 -m pip wheel --no-build-isolation --no-deps -w "$OUT" .
ls -la "$OUT"
