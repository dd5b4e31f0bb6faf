#!/usr/bin/env bash
# On the GPU machine: the embedded model on the GPU against the rewriters, in one lease.
#
#   scripts/gpu-model-arms.sh start   # install, time the model on GPU and CPU, start the arms
#   scripts/gpu-model-arms.sh wait    # wait (up to WAIT_S) and copy the results into $OUT
#
# Needs the model staged (scripts/pack-device-model.sh parts, scripts/gpu-stage-model.sh)
# and xllamacpp's CUDA build in /tmp/xwheel (scripts/build-xllamacpp-cuda.sh, started
# earlier in the lease). The three arms run at once, so they share the machine alike; the
# GPU lock keeps every timing run alone on the GPU, the model's answers included:
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
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
manifest=benchmarks/tasks/manifest.toml

case "${1:-}" in
start)
    while ! grep -q '^rc=' /tmp/xbuild.log 2>/dev/null; do sleep 5; done
    tail -n 3 /tmp/xbuild.log
    python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site \
        /tmp/xwheel/xllamacpp-*.whl || exit 1
    mkdir -p "$BENCH"
    for layers in -1 0; do
        python3 -m regrapht_core model check --json --gpu-layers "$layers" --max-tokens 256 \
            >"$OUT/model-check-layers$layers.json" || exit 1
    done
    only=()
    for task in $SUBSET; do only+=(--only "$task"); done
    common=(bench run "$manifest" --budget "$BUDGET" --time-limit "$LIMIT")
    setsid nohup python3 -m regrapht_core "${common[@]}" --no-rewriters \
        --json "$BENCH/model-only.json" >"$BENCH/model-only.log" 2>&1 </dev/null &
    setsid nohup python3 -m regrapht_core "${common[@]}" "${only[@]}" \
        --json "$BENCH/model-rewriters.json" >"$BENCH/model-rewriters.log" 2>&1 </dev/null &
    setsid nohup python3 -m regrapht_core "${common[@]}" "${only[@]}" --no-model \
        --json "$BENCH/rewriters.json" >"$BENCH/rewriters.log" 2>&1 </dev/null &
    sleep 2
    ;;
wait)
    end=$((SECONDS + ${WAIT_S:-540}))
    while pgrep -f "regrapht_core bench run" >/dev/null && [ $SECONDS -lt $end ]; do sleep 10; done
    ;;
esac
for arm in model-only model-rewriters rewriters; do
    [ -f "$BENCH/$arm.log" ] && cp "$BENCH/$arm.log" "$OUT/" && tail -n 2 "$BENCH/$arm.log"
    [ -f "$BENCH/$arm.json" ] && cp "$BENCH/$arm.json" "$OUT/"
done
pgrep -f "regrapht_core bench run" >/dev/null && echo "arms still running" || echo "arms done"
