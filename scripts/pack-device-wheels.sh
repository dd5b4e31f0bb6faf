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
# Most of it is what the miner never loads: the Java workers' jars (32 MB), RLlib, Data,
# Tune, Train, LLM and the dashboard's web client (`tests/core/bench/test_mine_ray.py`
# passes with them removed). The rest, its binaries compressed with xz rather than a
# wheel's deflate, is about 21 MB: .dev/ray/ray.tar.xz, the wheel's files as pip would lay
# them out, which scripts/gpu-env.sh unpacks when a call carries it.
rm -rf .dev/ray && mkdir -p .dev/ray/full .dev/ray/tree
ray="ray==$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('ray'))")"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --no-deps -d .dev/ray/full "${ray}"
python3 - .dev/ray/full/*.whl .dev/ray/tree <<'PY'
import os, sys, zipfile

unused = tuple(
    f"ray/{name}/"
    for name in ("jars", "rllib", "data", "tune", "train", "llm", "dashboard/client/build")
)
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for item in wheel.infolist():
        if not item.filename.startswith(unused):
            path = wheel.extract(item, sys.argv[2])
            # zipfile drops the permission bits: Ray's raylet and gcs_server must stay
            # executable (one mining call was lost to "Permission denied").
            if mode := (item.external_attr >> 16) & 0o777:
                os.chmod(path, mode)
PY
XZ_OPT=-9e tar -C .dev/ray/tree -cJf .dev/ray/ray.tar.xz .
rm -r .dev/ray/full .dev/ray/tree
du -sh .whl .dev/ray/ray.tar.xz
