"""What including all of CUB costs a candidate's compile, against the one header it uses.

The scan, recurrence, counting-sort and compaction rewriters included ``<cub/cub.cuh>``,
every CUB algorithm, though each calls one (``DeviceScan`` or ``BlockScan``). Every such
candidate is compiled in every search that proposes it, so the header's cost is paid per
candidate. For one corpus task per rewriter, its first step is compiled as the verifier
compiles it (``verify.compile.Compiler.cuda_object``: ``nvcc -arch=sm_90 -O3 -lineinfo
-std=c++17``), with the header it includes now and with ``<cub/cub.cuh>``, in alternating
rounds, each round a fresh object cache. Needs nvcc, no GPU. Writes
``benchmarks/results/cpu-cub-headers.json``:

    .venv/bin/python -m benchmarks.cub_headers [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from regrapht_core.bench.runner import current_commit, load_manifest
from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.optimize.rewriter_proposer import RewriterProposer
from regrapht_core.verify.compile import Compiler

OUT = Path(__file__).resolve().parent / "results" / "cpu-cub-headers.json"
MANIFEST = Path(__file__).resolve().parent / "corpus" / "manifest.toml"
TASKS = {
    "scans_recurrences_inclusive_i32_ptr": "LibraryScan",
    "scans_recurrences_iir_f32_ptr": "LinearRecurrence",
    "sorting_selection_countsort_u8_vec": "CountingSort",
    "sorting_selection_partition_i32_ptr": "Compaction",
}
WHOLE = "#include <cub/cub.cuh>"


def first_cub_step(name: str) -> str:
    """The task's first rewriter step that includes a CUB header."""
    (entry,) = [e for e in load_manifest(MANIFEST) if e.name == name]
    task = entry.task()
    propose = RewriterProposer()
    request = ProposeRequest(task, "sequential", "parallelization", task.source)
    while (proposal := propose(request)).code is not None:
        if proposal.code.startswith("#include <cub/"):
            return proposal.code
    raise SystemExit(f"{name}: no step includes CUB")


def compile_seconds(source: str) -> float:
    with tempfile.TemporaryDirectory() as cache:
        compiler = Compiler(Path(cache), "sm_90")
        start = time.perf_counter()
        outcome = compiler.cuda_object(source)
        seconds = time.perf_counter() - start
    if not outcome.ok:
        raise SystemExit(f"did not compile:\n{outcome.log}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for name, rewriter in TASKS.items():
        narrow = first_cub_step(name)
        header = narrow.splitlines()[0]
        whole = WHOLE + narrow[len(header) :]
        times: dict[str, list[float]] = {"narrow": [], "whole": []}
        for round_ in range(args.rounds):
            order = ("narrow", "whole") if round_ % 2 == 0 else ("whole", "narrow")
            for which in order:
                times[which].append(compile_seconds(narrow if which == "narrow" else whole))
        medians = {k: statistics.median(v) for k, v in times.items()}
        rows.append(
            {
                "task": name,
                "rewriter": rewriter,
                "header": header,
                "seconds": {k: [round(s, 3) for s in v] for k, v in times.items()},
                "median_s": {k: round(v, 3) for k, v in medians.items()},
                "saved_s": round(medians["whole"] - medians["narrow"], 3),
            }
        )
        sys.stdout.write(f"{name}: {rows[-1]['median_s']}\n")
    document = {
        "benchmark": "compile time of a CUB-including first step, its one header against "
        "<cub/cub.cuh> (nvcc as the verifier runs it, fresh object cache each time)",
        "device": f"{platform.node()} ({os.cpu_count()} CPUs), nvcc only, no GPU involved",
        "commit": current_commit(),
        "command": f"python -m benchmarks.cub_headers --rounds {args.rounds}",
        "rounds": args.rounds,
        "tasks": rows,
        "saved_s_median_over_tasks": round(statistics.median(r["saved_s"] for r in rows), 3),
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {OUT}\n")


if __name__ == "__main__":
    main()
