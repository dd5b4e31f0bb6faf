#!/usr/bin/env bash
# Usage: scripts/device-tree.sh slim|full|size
#
# The device tool copies the working tree to the GPU machine on every call and refuses more
# than 64 MiB, counted in disk blocks (a 200-byte file takes 4 KiB). The tracked tree is about
# 63 MiB of blocks, most of it some 2,700 small trajectory files under graph_snapshots/mined/,
# graph_snapshots/mined-h200x4/ and graph_snapshots/explored/ that no device call reads (GPU
# jobs read the built graph_snapshots/regraph.msgpack), which leaves no room for the 9.4 MB
# of wheels in .whl/ (scripts/pack-device-wheels.sh).
#
#   slim  leave those three folders out of the working tree (a non-cone sparse checkout):
#         they stay in git and in every commit, `git status` does not list them as deleted,
#         and checkouts and pulls do not write them back.
#   full  put them back (the sparse checkout disabled). Run it before anything that reads
#         the trajectories, such as rebuilding the graph from them.
#   size  the disk blocks of what a call carrying .whl/ would send: the tracked files on disk
#         (in slim mode the left-out ones are not there) and the untracked ones git does not
#         ignore, which travel too, plus .whl/ when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."

size() {
    local tree whl=0 total
    # NUL-separated, so any file name survives; a file left out by `slim` is skipped, and
    # .whl/ counts once (below) even where git does not ignore it.
    tree=$(git ls-files -z --cached --others --exclude-standard -- . ':(exclude).whl' |
        while IFS= read -r -d '' f; do
            if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
        done | du -ck --files0-from=- | tail -n 1 | cut -f 1)
    if [ -d .whl ]; then whl=$(du -sk .whl | cut -f 1); fi
    total=$((tree + whl))
    awk -v t="$tree" -v w="$whl" -v s="$total" 'BEGIN {
        printf "tree (git ls-files)    %6.1f MiB\n", t / 1024
        printf ".whl                   %6.1f MiB\n", w / 1024
        printf "total                  %6.1f MiB (a device call carries at most 64 MiB)\n", s / 1024
    }'
}

case "${1:-}" in
slim)
    git sparse-checkout set --no-cone '/*' '!/graph_snapshots/mined/' \
        '!/graph_snapshots/mined-h200x4/' '!/graph_snapshots/explored/'
    ;;
full)
    git sparse-checkout disable
    ;;
size)
    size
    ;;
*)
    echo "usage: $0 slim|full|size" >&2
    exit 2
    ;;
esac
