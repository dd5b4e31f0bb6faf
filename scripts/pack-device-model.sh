#!/usr/bin/env bash
# Here: split the embedded model's joined GGUF into .dev/1 … .dev/N (git-ignored) for
# scripts/gpu-stage-model.sh on the GPU machine, and put the
# xllamacpp wheel for the machine's Python 3.12 into .whl/.
#
# The device tool carries at most 64 MiB per call and Qwen2.5-Coder-0.5B's GGUF is 491 MB,
# so it travels in parts of 59 MiB (with the 4.5 MB checkout under the cap), one folder per back-to-back call (`carry: [".dev/K"]`).
set -euo pipefail
cd "$(dirname "$0")/.."
GGUF=$(.venv/bin/python -c '
from pathlib import Path
import os
from regrapht_core.model.embedded import DEFAULT_EMBEDDED, EMBEDDED, embedded_path
from regrapht_core.model.resolve import default_cache_dir
print(embedded_path(EMBEDDED[DEFAULT_EMBEDDED], cache_dir=default_cache_dir(os.environ)))')
rm -rf .dev && mkdir -p .dev
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
split -b 59M -d -a 2 "$GGUF" "$TMP/part."
count=0
for part in "$TMP"/part.*; do
    count=$((count + 1))
    mkdir -p ".dev/$count" && mv "$part" ".dev/$count/"
done
printf '%s %s %s\n' "$(basename "$GGUF")" "$(sha256sum "$GGUF" | cut -c1-64)" "$count" >.dev/1/model.txt
.venv/bin/python -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --no-deps -d .whl \
    "xllamacpp==$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')"
du -sh .dev/* .whl
