#!/usr/bin/env bash
# The GPU machine's one command: install the carried wheels, run every `gpu` test, run the
# GPU benchmarks and write their JSON results (benchmarks/results/, and $OUT when set).
set -uo pipefail
cd "$(dirname "$0")/.."

OUT_DIR="${OUT:-benchmarks/results}"
mkdir -p "$OUT_DIR"
LOG="$OUT_DIR/gpu-check.log"
: >"$LOG"
source scripts/gpu-env.sh >>"$LOG" 2>&1 || exit 1
{
    echo "== gpu-check $(date -u +%FT%TZ) commit ${REGRAPHT_COMMIT}"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
    nvcc --version | tail -n 2
    python3 --version
} 2>&1 | tee -a "$LOG"

status=0
python3 -m pytest -m gpu -p no:cacheprovider --continue-on-collection-errors tests 2>&1 | tee -a "$LOG" \
    || status=1
python3 -m pytest -m gpu -p no:cacheprovider benchmarks/test_verify_bench.py \
    2>&1 | tee -a "$LOG" || status=1
echo "== gpu-check done, status ${status}" | tee -a "$LOG"
exit "$status"
