# Two set-up commands on a fresh machine: `make demo` and `make test`.
# Both create .venv with the interpreter named by PYTHON and install everything themselves.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: demo test lint typecheck unit bench graph gpu-check clean

$(STAMP): pyproject.toml
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

test: $(STAMP) lint typecheck unit

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

gpu-check:
	bash scripts/gpu-check.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
