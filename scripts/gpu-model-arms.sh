#!/usr/bin/env bash
# On the GPU machine: the embedded model on the GPU against the rewriters, in one lease.
#
#   scripts/gpu-model-arms.sh start   # install, time the model on GPU and CPU, start the arms
#   scripts/gpu-model-arms.sh wait    # wait (up to WAIT_S), the arms' logs and JSON in $OUT/arms.tgz
#
# Needs, from earlier calls of the same lease (each within 30 s of the last): xllamacpp's
# CUDA build installed (a call carrying .dev/xwheel that sources scripts/gpu-env.sh) and
# the model staged (scripts/pack-device-model.sh parts, scripts/gpu-stage-model.sh). The
# arms run at once, so they share the machine alike; the GPU lock keeps every timing run
# alone on the GPU, the model's answers included.
#
# ARMS (or the file ARMS_FILE) names the arms, one per line: a name, then `regrapht bench
# run` arguments (the manifest first); every arm also gets --budget, --time-limit and
# --json, and --resume where RESUME_FROM (a folder) holds the arm's JSON from an earlier
# lease. $SUITE and $SUBSET in ARMS_FILE stand for the values below. RUNNER replaces the
# command each arm runs (default `python3 -m regrapht_core bench run`; scripts/gpu-sweep.sh
# runs benchmarks/sweep_search.py, which takes the same options). NO_MODEL=1: the arms use
# no model (--no-model), so the model's check is skipped and nothing need be staged.
# `start` refuses while arms run: a lease runs one set after another (the sweep once the
# five methods end), all in BENCH (default /tmp/bench) and one archive. POLL_S: how often
# `wait` looks (default 10 s). The default arms are the issue-19 comparison:
#   model-only       the whole suite, model alone (--no-rewriters)
#   model-rewriters  the 20 tasks of the earlier comparison, model where no rewriter acts
#   rewriters        the same 20 tasks, rewriters alone (--no-model)
set -uo pipefail
BUDGET=${BUDGET:-4}
LIMIT=${LIMIT:-60}
BENCH=${BENCH:-/tmp/bench}
SUITE=benchmarks/tasks/manifest.toml
SUBSET=""
for task in map_relu map_axpby map_clamp trans_sigmoid trans_gelu_tanh reduce_sum reduce_max \
    reduce_dot stencil_3pt stencil_fir33 stencil_jacobi2d dense_gemv dense_sgemm dense_transpose \
    hist_u8 scan_inclusive sparse_spmv_csr allpairs_potential image_box_blur rows_softmax; do
    SUBSET+=" --only $task"
done
if [ -n "${ARMS_FILE:-}" ]; then
    ARMS=$(sed -e "s|\$SUITE|$SUITE|g" -e "s|\$SUBSET|$SUBSET|g" -e '/^#/d' "$ARMS_FILE")
fi
ARMS=${ARMS:-"model-only $SUITE --no-rewriters
model-rewriters $SUITE $SUBSET
rewriters $SUITE $SUBSET --no-model"}
source scripts/gpu-env.sh || exit 1
source scripts/gpu-stage-model.sh
# Whether any process listed in the file (default: the arms') is alive.
running() {
    local pid
    for pid in $(cat "${1:-$BENCH/pids}" 2>/dev/null); do kill -0 "$pid" 2>/dev/null && return 0; done
    return 1
}

case "${1:-}" in
start)
    # Arms run one set at a time (the sweep after the five methods): at once they would
    # take each other's turns on the GPU and cut each other's searches short.
    if running; then echo "arms are still running: wait for them first"; exit 1; fi
    mkdir -p "$BENCH"
    for layers in $([ -n "${NO_MODEL:-}" ] || echo -1 0); do
        python3 -m regrapht_core model check --json --gpu-layers "$layers" --max-tokens 256 \
            >"$OUT/model-check-layers$layers.json" || exit 1
    done
    # The arms are about the model on the GPU: stop here if this xllamacpp cannot put it there.
    [ -n "${NO_MODEL:-}" ] ||
        python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["runsOn"] != "GPU")' \
            "$OUT/model-check-layers-1.json" || { echo "the model did not run on the GPU"; exit 1; }
    : >"$BENCH/pids"
    # The arms run from a copy of the tree taken now: the device tool copies the working
    # tree afresh at each call, and an arm still running from an earlier call found its
    # task files briefly gone (13 tasks lost to FileNotFoundError:
    # benchmarks/results/gpu-h200-whole-test-split-2be0f96/lease-2). The carried .dev (the
    # model's parts, mined graphs) is too big to copy and stays a link.
    tree=$(mktemp -d "$BENCH/tree.XXXXXX")
    tar -cf - --exclude=./.git --exclude=./.whl --exclude=./.dev . | tar -xf - -C "$tree" || exit 1
    [ ! -d .dev ] || ln -s "$PWD/.dev" "$tree/.dev"
    pythonpath=${PYTHONPATH:-}
    pythonpath=${pythonpath//$PWD/$tree}
    # What the GPUs do meanwhile, every 30 s: kernels (nvidia-smi) and turns, the share of
    # time each GPU's lock is held (scripts/gpu_lock_busy.py): whether the searches wait
    # for the GPU or for their own work. Both end with the machine; arms started later in
    # the lease (the sweep after the five methods) keep them, so one log spans the lease.
    if ! running "$BENCH/monitors"; then
        setsid nohup nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used \
            --format=csv -l 30 >"$BENCH/nvidia-smi-during-run.log" 2>&1 </dev/null &
        echo $! >"$BENCH/monitors"
        setsid nohup python3 scripts/gpu_lock_busy.py >"$BENCH/gpu-lock-busy.log" 2>&1 </dev/null &
        echo $! >>"$BENCH/monitors"
    fi
    while read -r arm args; do
        [ -n "$arm" ] || continue
        # An earlier lease's file of this arm (RESUME_FROM: its arms.tgz unpacked) is resumed.
        resume=""
        if [ -n "${RESUME_FROM:-}" ] && [ -f "$RESUME_FROM/$arm.json" ]; then
            cp "$RESUME_FROM/$arm.json" "$BENCH/$arm.json" && resume="--resume"
        fi
        # shellcheck disable=SC2086  # the arm's arguments are words on purpose
        (
            cd "$tree" || exit 1
            PYTHONPATH=$pythonpath setsid nohup ${RUNNER:-python3 -m regrapht_core bench run} \
                $args --budget "$BUDGET" $resume --time-limit "$LIMIT" --json "$BENCH/$arm.json" \
                >>"$BENCH/$arm.log" 2>&1 </dev/null &
            echo $! >>"$BENCH/pids"
        )
        echo "$arm" >>"$BENCH/arms"
    done <<<"$ARMS"
    ;;
wait)
    end=$((SECONDS + ${WAIT_S:-540}))
    while running && [ $SECONDS -lt $end ]; do sleep "${POLL_S:-10}"; done
    ;;
esac
# One archive: a call brings back only a few files, and every arm has a log and a JSON.
for arm in $(sort -u "$BENCH/arms" 2>/dev/null); do
    [ -f "$BENCH/$arm.log" ] && echo "$arm: $(tail -n 2 "$BENCH/$arm.log" | tr '\n' ' ')"
done
(cd "$BENCH" && ls ./*.log ./*.json >/dev/null 2>&1 && tar czf "$OUT/arms.tgz" ./*.log ./*.json)
if running; then echo "arms still running"; else echo "arms done"; fi
