# Sourced by the GPU machine's scripts: install the carried wheels and set PYTHONPATH.
#
# The machine has Python 3.12 with numpy, pytest, networkx and msgpack but no network: the
# rest travels as wheels in the ignored folder .whl/ (see docs/verification-design.md).
export REGRAPHT_COMMIT="${REGRAPHT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || return 1
    export PYTHONPATH="/tmp/site:${PWD}:${PWD}/server"
else
    export PYTHONPATH="${PWD}:${PWD}/server"
fi
