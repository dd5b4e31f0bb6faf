#!/usr/bin/env bash
# Here, at the start of a session that will use the GPU machine with the model on its GPU:
# everything the device calls carry, in the ignored folders they carry it from.
#
#   scripts/prepare-device-session.sh          # about 35 minutes on the 2-core dev VM
#
# - .whl/: the wheels the GPU machine lacks (scripts/pack-device-wheels.sh);
# - .dev/xwheel/: xllamacpp built with llama.cpp's CUDA backend for sm_90 (H100, H200),
#   in a throwaway venv holding the build's tools and the nvidia-cublas wheel, whose cuBLAS
#   scripts/build-xllamacpp-cuda.sh puts into the toolkit for the build and removes after;
# - .dev/1 … .dev/N: that wheel, then the embedded model, in parts of one call's carry each
#   (scripts/pack-device-model.sh), made last because their size depends on the checkout's.
#
# The working tree travels with every call too, and with .whl it is over a call's 64 MiB:
# `scripts/device-tree.sh slim` leaves the mined trajectories (which no device call reads)
# out of the checkout, `scripts/device-tree.sh full` puts them back.
#
# A new checkout has none of them, and the CUDA build is most of the time: start this first
# and work meanwhile. Then the device calls, each within 30 s of the last (docs/models.md):
# carry .whl, `source scripts/gpu-env.sh`; carry .dev/K, `source scripts/gpu-env.sh; source
# scripts/gpu-stage-model.sh`, K = 1 … N; then the arms (e.g. scripts/gpu-five-methods.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || { echo "run 'make test' or 'make demo' first: .venv is missing" >&2; exit 1; }
version=$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')
bash scripts/pack-device-wheels.sh
if ! ls .dev/xwheel/xllamacpp-"$version"-*.whl >/dev/null 2>&1; then
    tools=$(mktemp -d)
    trap 'rm -rf "$tools"' EXIT
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/python" -m pip install --quiet 'cython>=3.1' 'setuptools>=61' \
        'versioneer[toml]' wheel nvidia-cublas
    "$tools/venv/bin/python" -m pip download --quiet --no-binary=:all: --no-deps \
        -d "$tools/src" "xllamacpp==$version"
    rm -rf .dev/xwheel
    PATH="$tools/venv/bin:$PATH" REGRAPHT_PATCH_TOOLKIT=1 CUDA_ARCHITECTURES=90-real \
        bash scripts/build-xllamacpp-cuda.sh "$tools"/src/xllamacpp-*.tar.gz .dev/xwheel
fi
bash scripts/pack-device-model.sh
