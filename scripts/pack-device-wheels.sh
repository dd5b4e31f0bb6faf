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
# Ray (`graph mine --ray`) is a 79 MB wheel, over one device call's 64 MiB: it travels
# as two parts under .dev/ray/ (one call each, the machine kept warm between them), joined
# there by scripts/gpu-env.sh.
rm -rf .dev/ray && mkdir -p .dev/ray
ray="ray==$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('ray'))")"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --no-deps -d .dev/ray "${ray}"
wheel=$(ls .dev/ray/*.whl)
basename "${wheel}" > .dev/ray/name
split -n 2 -d "${wheel}" .dev/ray/part-
rm "${wheel}"
du -sh .whl .dev/ray/part-*
