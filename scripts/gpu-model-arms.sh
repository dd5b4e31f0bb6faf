#!/usr/bin/env bash
# On the GPU machine: the embedded model on the GPU against the rewriters, in one lease.
#
#   scripts/gpu-model-arms.sh start   # install, time the model on GPU and CPU, start the arms
#   scripts/gpu-model-arms.sh wait    # wait (up to WAIT_S) and copy the results into $OUT
#
# Needs, from earlier calls of the same lease (each within 30 s of the last): xllamacpp's
# CUDA build installed (a call carrying .dev/xwheel that sources scripts/gpu-env.sh) and
# the model staged (scripts/pack-device-model.sh parts, scripts/gpu-stage-model.sh). The
# three arms run at once, so they share the machine alike; the GPU lock keeps every timing
# run alone on the GPU, the model's answers included:
#   model-only       the whole suite, model alone (--no-rewriters)
#   model-rewriters  the 20 tasks of the earlier comparison, model where no rewriter acts
#   rewriters        the same 20 tasks, rewriters alone (--no-model)
set -uo pipefail
BUDGET=${BUDGET:-4}
LIMIT=${LIMIT:-60}
BENCH=/tmp/bench
SUBSET="map_relu map_axpby map_clamp trans_sigmoid trans_gelu_tanh reduce_sum reduce_max reduce_dot
 stencil_3pt stencil_fir33 stencil_jacobi2d dense_gemv dense_sgemm dense_transpose hist_u8
 scan_inclusive sparse_spmv_csr allpairs_potential image_box_blur rows_softmax"
source scripts/gpu-env.sh || exit 1
source scripts/gpu-stage-model.sh
manifest=benchmarks/tasks/manifest.toml
running() {
    local pid
    for pid in $(cat "$BENCH/pids" 2>/dev/null); do kill -0 "$pid" 2>/dev/null && return 0; done
    return 1
}

case "${1:-}" in
start)
    mkdir -p "$BENCH"
    for layers in -1 0; do
        python3 -m regrapht_core model check --json --gpu-layers "$layers" --max-tokens 256 \
            >"$OUT/model-check-layers$layers.json" || exit 1
    done
    # The arms are about the model on the GPU: stop here if this xllamacpp cannot put it there.
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["runsOn"] != "GPU")' \
        "$OUT/model-check-layers-1.json" || { echo "the model did not run on the GPU"; exit 1; }
    only=()
    for task in $SUBSET; do only+=(--only "$task"); done
    common=(bench run "$manifest" --budget "$BUDGET" --time-limit "$LIMIT")
    setsid nohup python3 -m regrapht_core "${common[@]}" --no-rewriters \
        --json "$BENCH/model-only.json" >"$BENCH/model-only.log" 2>&1 </dev/null &
    echo $! >"$BENCH/pids"
    setsid nohup python3 -m regrapht_core "${common[@]}" "${only[@]}" \
        --json "$BENCH/model-rewriters.json" >"$BENCH/model-rewriters.log" 2>&1 </dev/null &
    echo $! >>"$BENCH/pids"
    setsid nohup python3 -m regrapht_core "${common[@]}" "${only[@]}" --no-model \
        --json "$BENCH/rewriters.json" >"$BENCH/rewriters.log" 2>&1 </dev/null &
    echo $! >>"$BENCH/pids"
    ;;
wait)
    end=$((SECONDS + ${WAIT_S:-540}))
    while running && [ $SECONDS -lt $end ]; do sleep 10; done
    ;;
esac
for arm in model-only model-rewriters rewriters; do
    [ -f "$BENCH/$arm.log" ] && cp "$BENCH/$arm.log" "$OUT/" && tail -n 2 "$BENCH/$arm.log"
    [ -f "$BENCH/$arm.json" ] && cp "$BENCH/$arm.json" "$OUT/"
done
if running; then echo "arms still running"; else echo "arms done"; fi
