#!/usr/bin/env bash
# Here: split the embedded model's joined GGUF into .dev/1 … .dev/N (git-ignored) for
# scripts/gpu-stage-model.sh on the GPU machine, and xllamacpp's source release into
# .dev/xsrc/.
#
# The device tool carries at most 64 MiB per call and Qwen2.5-Coder-0.5B's GGUF is 491 MB,
# so it travels in parts of 50 MiB (with the checkout and its .git, about 10 MiB, under the cap), one folder per back-to-back call (`carry: [".dev/K"]`).
# The GPU build of xllamacpp is not downloaded: scripts/build-xllamacpp-cuda.sh makes it
# from the source release, which this puts into .dev/xsrc/.
set -euo pipefail
cd "$(dirname "$0")/.."
GGUF=$(.venv/bin/python -c '
from pathlib import Path
import os
from regrapht_core.model.embedded import DEFAULT_EMBEDDED, EMBEDDED, embedded_path
from regrapht_core.model.resolve import default_cache_dir
print(embedded_path(EMBEDDED[DEFAULT_EMBEDDED], cache_dir=default_cache_dir(os.environ)))')
rm -rf .dev/[0-9]* .dev/xsrc && mkdir -p .dev/xsrc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
split -b 50M -d -a 2 "$GGUF" "$TMP/part."
count=0
for part in "$TMP"/part.*; do
    count=$((count + 1))
    mkdir -p ".dev/$count" && mv "$part" ".dev/$count/"
done
printf '%s %s %s\n' "$(basename "$GGUF")" "$(sha256sum "$GGUF" | cut -c1-64)" "$count" >.dev/1/model.txt
.venv/bin/python -m pip download -q --no-binary=:all: --no-deps -d .dev/xsrc \
    "xllamacpp==$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')"
du -sh .dev/[0-9]* .dev/xsrc .whl
