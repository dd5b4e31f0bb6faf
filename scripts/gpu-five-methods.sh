#!/usr/bin/env bash
# On the GPU machine: issue 16's comparison, the five methods (mcgs, walks, plain, cot, rag)
# on the whole suite under one model and one budget, a part of the suite per lease.
#
#   PART=1 BUDGET=30 LIMIT=300 scripts/gpu-five-methods.sh start   # then, in later calls:
#   PART=1 WAIT_S=540 scripts/gpu-five-methods.sh wait
#
# At budget 30 a task's five searches need about 200 s of GPU time (timing runs and model
# answers, one at a time per GPU), the suite over two hours: more than one lease. So the
# suite runs in PARTS parts (default 6): part K is tasks K, K+PARTS, ... of the manifest,
# which spreads every part over the families. PART may name several parts ("3 4"), e.g.
# one per GPU on a machine of two.
#
# A task's five methods run one after another in one process, so they are measured in the
# same session against the same reference. PROCS_PER_GPU processes per GPU (default 4: the
# GPU is the bottleneck, and more processes would only leave more searches cut off when the
# lease ends), each taking its tasks in turn, spread round robin over the GPUs (`--gpu`).
# Each process writes its JSON after every finished search; with RESUME_FROM, a folder of
# an earlier lease's arms.tgz unpacked, each process resumes its file (`--resume`). The
# parts merge with `regrapht bench merge` when their engine fingerprints agree.
#
# The rest, staging the model and xllamacpp's CUDA build and the archive of logs and JSON
# in $OUT/arms.tgz, is scripts/gpu-model-arms.sh's.
set -uo pipefail
cd "$(dirname "$0")/.."
PART=${PART:?set PART to the parts of the suite to run, e.g. 1 or "3 4"}
PARTS=${PARTS:-6}
GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
PROCS=$((GPUS * ${PROCS_PER_GPU:-4}))
SUITE=benchmarks/tasks/manifest.toml
METHODS="--method mcgs --method walks --method plain --method cot --method rag"
mapfile -t tasks < <(python3 - "$SUITE" "$PARTS" $PART <<'PY'
import sys, tomllib
from pathlib import Path

entries = tomllib.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))["task"]
parts = int(sys.argv[2])
for part in map(int, sys.argv[3:]):
    for entry in entries[part - 1 :: parts]:
        print(entry.get("name") or Path(entry["file"]).stem)
PY
)
ARMS=""
for ((proc = 0; proc < PROCS && proc < ${#tasks[@]}; proc++)); do
    only=""
    for ((i = proc; i < ${#tasks[@]}; i += PROCS)); do only+=" --only ${tasks[i]}"; done
    ARMS+="five-${PART// /-}-$((proc + 1)) $SUITE $METHODS$only --gpu $((proc % GPUS))"$'\n'
done
export ARMS
exec bash scripts/gpu-model-arms.sh "$@"
