#!/usr/bin/env bash
# The GPU machine's commands, each sized for one 10-minute device call:
#   bash scripts/gpu-check.sh           (make gpu-check) every `gpu` test under tests/
#   bash scripts/gpu-check.sh bench     (make gpu-bench-verify) the honest controls, then the
#                                       verifier's throughput over the suite with the time left
# Both install the carried wheels first, write a log (and the benchmarks their JSON results)
# to $OUT on the GPU machine, else to benchmarks/results/.
#
# GPU timings must not overlap, so the steps run one after another, each under `timeout`
# (pytest-timeout may be missing on the machine). The throughput benchmark is the elastic
# step: it gets what is left of the total after the honest controls, less a reserve for its
# tail (the task running when its budget ends finishes). The tests and the benchmarks are
# separate calls because together they need more than one call's ten minutes.
#   GPU_CHECK_TOTAL_S    whole script (default 560 s)
#   HONEST_CONTROLS_S    the honest controls (default 200 s)
#   THROUGHPUT_TAIL_S    reserved after the throughput budget (default 60 s)
set -uo pipefail
cd "$(dirname "$0")/.."

WHAT="${1:-tests}"
TOTAL_S="${GPU_CHECK_TOTAL_S:-560}"
HONEST_S="${HONEST_CONTROLS_S:-200}"
TAIL_S="${THROUGHPUT_TAIL_S:-60}"

OUT_DIR="${OUT:-benchmarks/results}"
mkdir -p "$OUT_DIR"
LOG="$OUT_DIR/gpu-check-${WHAT}.log"
: >"$LOG"
source scripts/gpu-env.sh >>"$LOG" 2>&1 || exit 1
{
    echo "== gpu-check ${WHAT} $(date -u +%FT%TZ) commit ${REGRAPHT_COMMIT}"
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
PYTEST=(python3 -m pytest -m gpu -p no:cacheprovider -v -o console_output_style=times -rfE)

case "$WHAT" in
tests)
    step "gpu tests" "$((TOTAL_S - SECONDS))" \
        "${PYTEST[@]}" --continue-on-collection-errors tests
    ;;
bench)
    step "honest controls" "$HONEST_S" "${PYTEST[@]}" benchmarks/test_honest_controls.py
    left=$((TOTAL_S - SECONDS))
    budget=$((left - TAIL_S))
    if ((budget >= 30)); then
        REGRAPHT_THROUGHPUT_BUDGET_S="$budget" step "suite throughput (budget ${budget} s)" \
            "$left" "${PYTEST[@]}" benchmarks/test_verify_bench.py
    else
        echo "== suite throughput: skipped, ${left} s left of ${TOTAL_S} s" | tee -a "$LOG"
        status=1
    fi
    ;;
*)
    echo "usage: $0 [tests|bench]" >&2
    exit 2
    ;;
esac
echo "== gpu-check ${WHAT} done after ${SECONDS} s, status ${status}" | tee -a "$LOG"
exit "$status"
