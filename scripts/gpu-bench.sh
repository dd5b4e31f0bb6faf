#!/usr/bin/env bash
# On the GPU machine: `regrapht bench ARGS...` with the carried wheels, log teed to $OUT.
#   bash scripts/gpu-bench.sh benchmarks/tasks/manifest.toml --no-model --budget 3 \
#       --json "$OUT/suite.json"
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR="${OUT:-benchmarks/results}"
mkdir -p "$OUT_DIR"
LOG="$OUT_DIR/gpu-bench.log"
: >"$LOG"
source scripts/gpu-env.sh >>"$LOG" 2>&1 || exit 1
{
    echo "== gpu-bench $(date -u +%FT%TZ) $*"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
} 2>&1 | tee -a "$LOG"
python3 -m regrapht_core bench "$@" 2>&1 | tee -a "$LOG"
