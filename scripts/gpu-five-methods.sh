#!/usr/bin/env bash
# On the GPU machine: issue 16's comparison, the five methods (mcgs, walks, plain, cot, rag)
# on the whole suite under one model and one budget, a part of the suite per lease.
#
#   PART=1 scripts/gpu-five-methods.sh start   # then, in later calls of the lease:
#   PART=1 WAIT_S=540 scripts/gpu-five-methods.sh wait
#
# At budget 30 a task's five searches took 10 to 17 minutes with four processes on one H200
# (part 1, benchmarks/results/gpu-h200-five-methods-46e58b6/), waiting mostly for the GPU's
# turn (timing runs and model answers, one at a time per GPU): more than one lease. So the
# suite runs in PARTS parts (default 6): part K is tasks K, K+PARTS, ... of the manifest,
# which spreads every part over the families. PART may name several parts ("3 4"), e.g.
# one per GPU on a machine of two.
#
# A task's five methods run one after another in one process, so they are measured in the
# same session against the same reference. PROCS_PER_GPU processes per GPU (default 4: the
# GPU is the bottleneck, and more processes would only leave more searches cut off when the
# lease ends), each taking its tasks in turn (dealt as below), spread round robin over the
# GPUs (`--gpu`).
# Each process writes its JSON after every finished search. With RESUME_FROM, a folder of
# earlier leases' five-*.json files (their arms.tgz unpacked, or their committed copies),
# each process starts from the runs those files hold for its own tasks (`--resume`), however
# the earlier lease had spread the tasks over its processes and GPUs. The parts merge with
# `regrapht bench merge` when their engine fingerprints agree.
#
# ARMS_SCRIPT replaces scripts/gpu-model-arms.sh (the tests read the arms this script makes).
# The rest, staging the model and xllamacpp's CUDA build and the archive of logs and JSON
# in $OUT/arms.tgz, is scripts/gpu-model-arms.sh's.
set -uo pipefail
cd "$(dirname "$0")/.."
PART=${PART:?set PART to the parts of the suite to run, e.g. 1 or "3 4"}
PARTS=${PARTS:-6}
# Every part must run with the same settings to merge: budget 30, 300 s per search at most.
export BUDGET=${BUDGET:-30} LIMIT=${LIMIT:-300}
GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
PROCS=$((GPUS * ${PROCS_PER_GPU:-4}))
SUITE=benchmarks/tasks/manifest.toml
# METHODS and NAME (the files' prefix) set another study over the same parts: e.g. MCGS alone
# with another snapshot, METHODS="--method mcgs" NAME=mcgs-mined, to set against this run's
# MCGS column.
METHODS=${METHODS:-"--method mcgs --method walks --method plain --method cot --method rag"}
NAME=${NAME:-five}
EARLIER=${RESUME_FROM:-}
# Each process's tasks, one line per process. The tasks with the most searches still to run
# go first (searches the earlier files hold count as done), each to the process with the
# fewest searches to run: a fresh part is dealt round robin, and a resumed run spreads what
# is left evenly, however the earlier lease had split it (after the third lease, round robin
# would have left one process 8 searches and three others 3). Finished tasks are dealt too,
# so this lease's files hold every run and merge alone.
mapfile -t dealt < <(METHODS=$METHODS NAME=$NAME python3 - "$SUITE" "$PARTS" "$PROCS" "${EARLIER:-}" $PART <<'PY'
import json, os, sys, tomllib
from pathlib import Path

suite, parts, procs, earlier = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
entries = tomllib.loads(Path(suite).read_text(encoding="utf-8"))["task"]
tasks = [
    entry.get("name") or Path(entry["file"]).stem
    for part in map(int, sys.argv[5:])
    for entry in entries[part - 1 :: parts]
]
done = set()
for path in sorted(Path(earlier).glob(os.environ["NAME"] + "-*.json")) if earlier else []:
    done |= {(r["task"], r["method"]) for r in json.loads(path.read_text("utf-8"))["runs"]}
methods = os.environ["METHODS"].split()[1::2]
left = {task: sum((task, method) not in done for method in methods) for task in tasks}
load, mine = [0] * min(procs, len(tasks)), [[] for _ in range(min(procs, len(tasks)))]
for task in sorted(tasks, key=lambda task: -left[task]):
    proc = load.index(min(load))
    mine[proc].append(task)
    load[proc] += left[task]
for names in mine:
    print(" ".join(names))
PY
)
ARMS=""
if [ -n "$EARLIER" ]; then
    export RESUME_FROM=/tmp/bench-resume
    rm -rf "$RESUME_FROM" && mkdir -p "$RESUME_FROM"
fi
for ((proc = 0; proc < ${#dealt[@]}; proc++)); do
    arm="$NAME-${PART// /-}-$((proc + 1))"
    read -ra mine <<<"${dealt[proc]}"
    ARMS+="$arm $SUITE $METHODS$(printf ' --only %s' "${mine[@]}") --gpu $((proc % GPUS))"$'\n'
    if [ -n "$EARLIER" ]; then
        # This process's tasks' finished runs from every earlier file, one document.
        NAME=$NAME python3 - "$EARLIER" "$RESUME_FROM/$arm.json" "${mine[@]}" <<'PY' || exit 1
import json, os, sys
from pathlib import Path

earlier = sorted(Path(sys.argv[1]).glob(os.environ["NAME"] + "-*.json"))
tasks, runs, header = set(sys.argv[3:]), {}, None
for path in earlier:
    document = json.loads(path.read_text(encoding="utf-8"))
    mine = [run for run in document["runs"] if run["task"] in tasks]
    if mine:
        header = header or document
        runs.update({(run["task"], run["method"]): run for run in mine})
if header is not None:
    Path(sys.argv[2]).write_text(json.dumps(header | {"runs": list(runs.values())}), encoding="utf-8")
PY
    fi
done
export ARMS
exec bash "${ARMS_SCRIPT:-scripts/gpu-model-arms.sh}" "$@"
