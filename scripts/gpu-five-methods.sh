#!/usr/bin/env bash
# On the GPU machine: issue 16's comparison, the five methods (mcgs, walks, plain, cot, rag)
# on one third of the suite per lease, under one model and one budget.
#
#   PART=1 BUDGET=30 LIMIT=240 scripts/gpu-five-methods.sh start   # then ... wait, as below
#   PART=1 WAIT_S=540 scripts/gpu-five-methods.sh wait
#
# The whole suite at budget 30 with five methods needs more GPU time than one lease gives,
# so it runs in three parts: PART=K takes tasks K, K+3, K+6, ... of the manifest (13 tasks,
# every family). Each task runs all five methods one after another in one process, so the
# methods of a task are measured in the same session against the same reference; the
# processes, one per task, are spread round robin over the machine's GPUs (`--gpu`), whose
# locks keep each GPU's timing runs and model answers one at a time. The parts merge with
# `regrapht bench merge` when their engine fingerprints agree (`bench.runner`).
#
# Everything else, the staging of the model and xllamacpp's CUDA build and the archive of
# logs and JSON in $OUT/arms.tgz, is scripts/gpu-model-arms.sh's.
set -uo pipefail
cd "$(dirname "$0")/.."
PART=${PART:?set PART to 1, 2 or 3}
SUITE=benchmarks/tasks/manifest.toml
GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
METHODS="--method mcgs --method walks --method plain --method cot --method rag"
ARMS=""
index=0
for task in $(python3 - "$SUITE" "$PART" <<'PY'
import sys, tomllib
from pathlib import Path

entries = tomllib.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))["task"]
part = int(sys.argv[2])
print(" ".join(str(e.get("name") or Path(e["file"]).stem) for e in entries[part - 1 :: 3]))
PY
); do
    ARMS+="five-$PART-$task $SUITE $METHODS --only $task --gpu $((index % GPUS))"$'\n'
    index=$((index + 1))
done
export ARMS
exec bash scripts/gpu-model-arms.sh "$@"
