# Sourced by the GPU machine's scripts: install the carried wheels and set PYTHONPATH.
#
# The machine has Python 3.12 with numpy, pytest, networkx and msgpack but no network: the
# rest travels as wheels in the ignored folder .whl/ (see docs/verification-design.md).
export REGRAPHT_COMMIT="${REGRAPHT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
export PYTHONUNBUFFERED=1
# A call that carries no .whl (to leave room for a Ray part) uses what an earlier call on
# this warm machine installed. The same wheels are installed once: `pip --upgrade` replaces
# every file, and a later call's reinstall pulled rapidfuzz's files from under a benchmark
# still running from an earlier call (benchmarks/results/gpu-h200-explore-9344307).
if ls .whl/*.whl >/dev/null 2>&1; then
    wheels=$(sha256sum .whl/*.whl | sha256sum | cut -c1-64)
    if [ "$(cat /tmp/site/.regrapht-wheels 2>/dev/null)" != "$wheels" ]; then
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl || return 1
        echo "$wheels" >/tmp/site/.regrapht-wheels
    fi
    export PYTHONPATH="/tmp/site:${PWD}:${PWD}/server"
elif [ -d /tmp/site ]; then
    export PYTHONPATH="/tmp/site:${PWD}:${PWD}/server"
else
    export PYTHONPATH="${PWD}:${PWD}/server"
fi
# xllamacpp's CUDA build travels in parts with the model's (scripts/gpu-stage-model.sh
# installs it into /tmp/site); it finds cuBLAS in the toolkit.
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Ray travels on its own (scripts/pack-device-wheels.sh), in the calls that mine.
if [ -f .dev/ray/ray.tar.xz ] && [ ! -f /tmp/site/ray/__init__.py ]; then
    mkdir -p /tmp/site && tar -C /tmp/site -xJf .dev/ray/ray.tar.xz || return 1
fi
