#!/usr/bin/env bash
# Here: split the embedded model's joined GGUF into .dev/1 … .dev/N (git-ignored) for
# scripts/gpu-stage-model.sh on the GPU machine, one folder per back-to-back call
# (`carry: [".dev/K"]`), and put xllamacpp's source release into .dev/xsrc/.
#
# The device tool carries at most 64 MiB per call, counting the checkout's files and its
# .git (28 MB at 6080f3c), and Qwen2.5-Coder-0.5B's GGUF is 491 MB: each part is what is
# left under 62 MiB. Calls must follow each other within the machine's 30 s warm time, or
# it is given back with the parts already sent.
#
# xllamacpp's CUDA build (scripts/build-xllamacpp-cuda.sh) takes 33 minutes on this VM's 2
# cores and more than 400 s of device time on the GPU machine's 16: build it here, into
# .dev/xwheel/ (34 MB, a call of its own; scripts/gpu-env.sh installs it).
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
travelling=$(( $(git ls-files -co --exclude-standard -z | du -cb --files0-from=- | tail -1 | cut -f1) + $(du -sb .git | cut -f1) ))
part_mib=$(( 62 - travelling / 1048576 ))
split -b "${part_mib}M" -d -a 2 "$GGUF" "$TMP/part."
count=0
for part in "$TMP"/part.*; do
    count=$((count + 1))
    mkdir -p ".dev/$count" && mv "$part" ".dev/$count/"
done
printf '%s %s %s\n' "$(basename "$GGUF")" "$(sha256sum "$GGUF" | cut -c1-64)" "$count" >.dev/1/model.txt
.venv/bin/python -m pip download -q --no-binary=:all: --no-deps -d .dev/xsrc \
    "xllamacpp==$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')"
du -sh .dev/[0-9]* .dev/xsrc .whl
