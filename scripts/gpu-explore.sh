#!/usr/bin/env bash
# On the GPU machine (two GPUs), in one lease: mine train tasks with --explore, build the
# graph with what that mined added, then search test tasks with the seed graph and with it.
#
#   scripts/gpu-explore.sh start   # start it all in the background (after gpu-env.sh's call)
#   scripts/gpu-explore.sh wait    # wait (up to WAIT_S); logs, records and results in $OUT/explore.tgz
#
# Rewriters only (--no-model), kernel-only timing, as the corpus was mined. Mining runs
# eight processes (four per GPU) over the train list TRAIN (default
# scripts/explore/train.txt) for at most MINE_S seconds (a process stopped then writes its
# summary; a task cut short is not recorded); then the graph is built from the seed's, the
# shipped mined and the explored trajectories, and the two arms search the test list TEST
# (default scripts/explore/test.txt; empty: no search), four shards each, every GPU
# running two shards of each graph (scripts/gpu-model-arms.sh, NO_MODEL=1).
set -uo pipefail
WORK=${WORK:-/tmp/explore}
MINE_BUDGET=${MINE_BUDGET:-12}
MINE_LIMIT=${MINE_LIMIT:-90}
MINE_S=${MINE_S:-540}
TRAIN=${TRAIN:-scripts/explore/train.txt}
TEST=${TEST-scripts/explore/test.txt}
source scripts/gpu-env.sh || exit 1
manifest=benchmarks/corpus/manifest.toml

case "${1:-}" in
start)
    mkdir -p "$WORK"
    cat >"$WORK/run.sh" <<SCRIPT
set -uo pipefail
cd "$PWD"
mapfile -t tasks < <(sed -e '/^#/d' $TRAIN)
for k in 0 1 2 3 4 5 6 7; do
    picked=""
    for ((i = k; i < \${#tasks[@]}; i += 8)); do picked+=" --only \${tasks[i]}"; done
    timeout -s TERM $MINE_S python3 -m regrapht_core graph mine $manifest --split train \\
        --explore --no-model --timing kernel_only --budget $MINE_BUDGET --time-limit $MINE_LIMIT \\
        --gpu \$((k % 2)) --out $WORK/mined/\$k \$picked >$WORK/mine-\$k.log 2>&1 &
done
wait
mkdir -p $WORK/trajectories
cp $WORK/mined/*/trajectories/*.json $WORK/trajectories/ 2>/dev/null
python3 -m regrapht_core graph build --trajectories graph_snapshots/trajectories \\
    --out $WORK/seed.msgpack >$WORK/build.log 2>&1
python3 -m regrapht_core graph build --trajectories graph_snapshots/trajectories \\
    --trajectories graph_snapshots/mined/trajectories --trajectories $WORK/trajectories \\
    --out $WORK/explored.msgpack >>$WORK/build.log 2>&1
python3 -m regrapht_core graph stats --snapshot $WORK/explored.msgpack >>$WORK/build.log 2>&1
if [ -z "$TEST" ]; then echo done >$WORK/finished; exit 0; fi
test=\$(sed -e '/^#/d' -e 's/^/--only /' $TEST | tr '\n' ' ')
arms=""
for s in 1 2 3 4; do
    arms+="seed-\$s $manifest \$test --timing kernel_only --no-model --shard \$s/4 --snapshot $WORK/seed.msgpack --gpu \$((s % 2))
explored-\$s $manifest \$test --timing kernel_only --no-model --shard \$s/4 --snapshot $WORK/explored.msgpack --gpu \$(((s + 1) % 2))
"
done
NO_MODEL=1 BENCH=$WORK/bench ARMS="\$arms" BUDGET=\${BUDGET:-12} LIMIT=\${LIMIT:-60} \\
    bash scripts/gpu-model-arms.sh start >$WORK/arms-start.log 2>&1
BENCH=$WORK/bench WAIT_S=3000 bash scripts/gpu-model-arms.sh wait >>$WORK/arms-start.log 2>&1
echo done >$WORK/finished
SCRIPT
    setsid nohup bash "$WORK/run.sh" >"$WORK/run.log" 2>&1 </dev/null &
    echo "started"
    ;;
wait)
    end=$((SECONDS + ${WAIT_S:-540}))
    while [ ! -f "$WORK/finished" ] && [ $SECONDS -lt $end ]; do sleep 10; done
    ;;
esac
(cd "$WORK" && tar czf "$OUT/explore.tgz" --exclude='*.msgpack' ./*.log ./mined ./bench \
    ./trajectories 2>/dev/null)
tail -n 3 "$WORK"/mine-*.log 2>/dev/null | tail -n 24
[ -f "$WORK/finished" ] && echo "finished" || echo "still running"
