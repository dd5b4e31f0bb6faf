#!/usr/bin/env bash
# On a GPU machine of several GPUs: `regrapht bench run MANIFEST ARGS...` split over all of
# them at once (part k of N, --shard k/N, on GPU k-1), then `regrapht bench merge` into
# $OUT/NAME.json, each part's log beside it. Each GPU times its own candidates under its own
# lock; the host's cores (16 per GPU on nvidia-h200-x4) compile and run the references.
#   bash scripts/gpu-bench-shards.sh NAME benchmarks/cxx/manifest.toml --no-model --budget 6
# The parts share the host: with end-to-end timing their copies compete, and near the copy
# bound that shows (benchmarks/cxx/README.md: copy floors a median 1.27x longer than on one
# GPU alone). Suited to compile-level and kernel-only runs; re-time near misses alone.
# The parts stay in .dev/shards/ on the machine, rewritten after each task: parts stopped at
# SHARD_LIMIT_S (default 500 s, inside one device call) are merged as far as they got, and
# the next call on the warm machine finishes them with --resume.
set -uo pipefail
cd "$(dirname "$0")/.."
NAME="$1"
shift
OUT_DIR="${OUT:-benchmarks/results}"
mkdir -p "$OUT_DIR" .dev/shards
source scripts/gpu-env.sh || exit 1
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
echo "== ${NAME}: ${gpus} GPUs, commit ${REGRAPHT_COMMIT}, $(date -u +%FT%TZ)"
pids=()
for k in $(seq 1 "$gpus"); do
    timeout --kill-after=10 "${SHARD_LIMIT_S:-500}" python3 -m regrapht_core bench run "$@" --shard "${k}/${gpus}" --gpu $((k - 1)) \
        --json ".dev/shards/${NAME}-${k}.json" >"${OUT_DIR}/${NAME}-${k}.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
python3 -m regrapht_core bench merge .dev/shards/"${NAME}"-*.json --json "${OUT_DIR}/${NAME}.json" ||
    status=1
exit $status
