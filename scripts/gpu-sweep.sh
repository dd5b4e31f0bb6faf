#!/usr/bin/env bash
# On the GPU machine: issue 16's sweep of the search's defaults (benchmarks/sweep_search.py),
# one process per setting, spread round robin over the GPUs.
#
#   scripts/gpu-sweep.sh start              # then, in later calls of the lease:
#   WAIT_S=540 scripts/gpu-sweep.sh wait    # logs and JSON in $OUT/arms.tgz
#
# Each process runs MCGS with one setting changed, or the defaults (twice: the second run
# measures the timing's noise, the yardstick for the others), on the same COUNT
# train-split tasks of the generated corpus, one per family (default 12), in one order, so
# a lease that ends early leaves every setting with about the same tasks done; RESUME_FROM
# (a folder of an earlier lease's sweep-*.json) resumes them. NO_MODEL=1 (the default) runs
# rewriters only: no model to stage, and the settings decide among the rewriters' steps
# alone; NO_MODEL= (empty) lets the embedded model answer where no rewriter does, which
# needs the model staged as for scripts/gpu-model-arms.sh. Budget 30 as in the five-method
# run, 120 s per search. Merge: python3 -m benchmarks.sweep_search merge sweep-*.json --json F,
# then regrapht bench report F.
#
# ARMS_SCRIPT replaces scripts/gpu-model-arms.sh (the tests read the arms this script makes).
set -uo pipefail
cd "$(dirname "$0")/.."
export BUDGET=${BUDGET:-30} LIMIT=${LIMIT:-120} NO_MODEL=${NO_MODEL-1}
GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
CORPUS=benchmarks/corpus/manifest.toml
mapfile -t tasks < <(python3 -m benchmarks.sweep_search tasks "$CORPUS" --count "${COUNT:-12}")
ARMS=""
proc=0
while read -r name sets; do
    ARMS+="sweep-$name $CORPUS$(printf ' --only %s' "${tasks[@]}") $sets"
    ARMS+="${NO_MODEL:+ --no-model} --gpu $((proc % GPUS))"$'\n'
    proc=$((proc + 1))
done < <(python3 -m benchmarks.sweep_search settings)
export ARMS RUNNER="python3 -m benchmarks.sweep_search run"
exec bash "${ARMS_SCRIPT:-scripts/gpu-model-arms.sh}" "$@"
