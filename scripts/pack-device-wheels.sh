#!/usr/bin/env bash
# Fill the ignored folder .whl/ with what the GPU machine lacks (it has no network): the
# pycuda wheels built there (shared/device-wheels) and, for Python 3.12 / x86-64, the pure
# and binary wheels of the engine's and the tests' dependencies, at the versions of .venv.
# scripts/gpu-env.sh installs them there. Numpy, networkx, msgpack and pytest are on the
# machine already.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
cp ../shared/device-wheels/*.whl .whl/
packages=(attrs cattrs click hypothesis lsprotocol markdown-it-py mdurl pygls Pygments
    pytest-asyncio pytest-benchmark pytest-lsp pytest-timeout RapidFuzz rich sortedcontainers
    tree-sitter tree-sitter-cpp tree-sitter-cuda typing_extensions py-cpuinfo2
    filelock jsonschema jsonschema-specifications referencing rpds-py protobuf PyYAML requests
    urllib3 idna charset-normalizer certifi)
pins=()
for name in "${packages[@]}"; do
    pins+=("${name}==$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('${name}'))")")
done
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux_2_28_x86_64 --no-deps -d .whl "${pins[@]}"
# Ray (`graph mine --ray`) is a 79 MB wheel, over one device call's 64 MiB with the rest.
# 32 MB of it are the Java workers' jars, and a few MB libraries the miner never imports
# (RLlib, Data, Tune, Train, LLM); without them (`tests/core/bench/test_mine_ray.py`
# passes with them removed) it is about 43 MB and travels in one call as .dev/ray/*.whl,
# which scripts/gpu-env.sh installs when a call carries it.
rm -rf .dev/ray && mkdir -p .dev/ray/full
ray="ray==$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('ray'))")"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --no-deps -d .dev/ray/full "${ray}"
python3 - .dev/ray/full/*.whl .dev/ray <<'PY'
import sys, zipfile
from pathlib import Path

source, folder = Path(sys.argv[1]), Path(sys.argv[2])
unused = tuple(f"ray/{name}/" for name in ("jars", "rllib", "data", "tune", "train", "llm"))
with zipfile.ZipFile(source) as full, zipfile.ZipFile(
    folder / source.name, "w", zipfile.ZIP_DEFLATED
) as lean:
    for item in full.infolist():
        if item.filename.startswith(unused):
            continue
        data = full.read(item)
        if item.filename.endswith(".dist-info/RECORD"):
            kept = [line for line in data.decode().splitlines() if not line.startswith(unused)]
            data = ("\n".join(kept) + "\n").encode()
        lean.writestr(item, data)
PY
rm -r .dev/ray/full
du -sh .whl .dev/ray/*.whl
