#!/usr/bin/env bash
# The GPU machine's one command, sized for one 10-minute device call: install the carried
# wheels, run every `gpu` test, then the honest controls and the suite throughput benchmark,
# writing their JSON results (benchmarks/results/, and $OUT when set) and a log.
#
# GPU timings must not overlap, so the steps run one after another, each under `timeout`
# (pytest-timeout may be missing on the machine). The throughput benchmark is the elastic
# step: it gets what is left of the total budget after the others, less a reserve for its
# tail (the task running when its budget ends finishes) and the wheels' install; with too
# little left it is skipped, not failed: the whole-suite figure comes from a call of its own,
#   python3 -m benchmarks.verify_throughput --per-task 4 --budget 480
#   GPU_CHECK_TOTAL_S    whole script (default 560 s)
#   GPU_TESTS_S          the gpu tests (default 400 s)
#   HONEST_CONTROLS_S    the honest controls (default 100 s)
#   THROUGHPUT_TAIL_S    reserved after the throughput budget (default 60 s)
set -uo pipefail
cd "$(dirname "$0")/.."

TOTAL_S="${GPU_CHECK_TOTAL_S:-560}"
TESTS_S="${GPU_TESTS_S:-400}"
HONEST_S="${HONEST_CONTROLS_S:-100}"
TAIL_S="${THROUGHPUT_TAIL_S:-60}"

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
# step NAME SECONDS COMMAND...: run under a time limit, log its output, exit code and time.
step() {
    local name="$1" limit="$2" started=$SECONDS code
    shift 2
    echo "== ${name} (limit ${limit} s)" | tee -a "$LOG"
    timeout --kill-after=15 "$limit" "$@" 2>&1 | tee -a "$LOG"
    code=${PIPESTATUS[0]}
    [[ $code -eq 124 || $code -eq 137 ]] && echo "== ${name}: TIMED OUT" | tee -a "$LOG"
    echo "== ${name}: exit ${code} after $((SECONDS - started)) s" | tee -a "$LOG"
    [[ $code -eq 0 ]] || status=1
}

step "gpu tests" "$TESTS_S" \
    python3 -m pytest -m gpu -p no:cacheprovider --continue-on-collection-errors tests
step "honest controls" "$HONEST_S" \
    python3 -m pytest -m gpu -p no:cacheprovider benchmarks/test_honest_controls.py

left=$((TOTAL_S - SECONDS))
budget=$((left - TAIL_S))
if ((budget >= 30)); then
    REGRAPHT_THROUGHPUT_BUDGET_S="$budget" step "suite throughput (budget ${budget} s)" "$left" \
        python3 -m pytest -m gpu -p no:cacheprovider benchmarks/test_verify_bench.py
else
    echo "== suite throughput: skipped, ${left} s left of ${TOTAL_S} s" | tee -a "$LOG"
fi
echo "== gpu-check done after ${SECONDS} s, status ${status}" | tee -a "$LOG"
exit "$status"
