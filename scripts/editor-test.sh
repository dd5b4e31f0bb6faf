#!/usr/bin/env bash
# The real-editor test: the built .vsix in code-server, driven through chromium, against
# the real language server from .venv (rewriters only, compile-only results: no GPU needed).
# `make editor-test` builds what it needs first; screenshots and logs go to build/editor-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
CACHE="${REGRAPHT_EDITOR_CACHE:-$HOME/.cache/regrapht-editor}"
export PATH="$CACHE/node-24.21.0/bin:$PATH"
export REGRAPHT_PYTHON="${REGRAPHT_PYTHON:-$REPO/.venv/bin/python}"
export REGRAPHT_VSIX="${REGRAPHT_VSIX:-$REPO/vscode-extension/regrapht.vsix}"
export REGRAPHT_EDITOR_ARTIFACTS="${REGRAPHT_EDITOR_ARTIFACTS:-$REPO/build/editor-test}"
rm -rf "$REGRAPHT_EDITOR_ARTIFACTS"
mkdir -p "$REGRAPHT_EDITOR_ARTIFACTS"
cd vscode-extension
npx vitest run --config vitest.editor.config.mts
echo "editor-test: screenshots and logs in $REGRAPHT_EDITOR_ARTIFACTS"
