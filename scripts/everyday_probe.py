"""Everyday C++ as a new user would try it: does each function become a task, and does the
first step (parallelization, rewriters only) give code? No GPU needed.

The 87 files in ``benchmarks/cxx/everyday/`` were written quickly, the way people write such
loops (``std::vector`` by reference, ``size_t`` indices, ``std::clamp``, argmin over an index
local, softmax with its output declared mid-body), without annotations, to find what the
engine still refuses; unlike ``benchmarks/cxx`` they carry no expectations. Each entry is
the first function of its file, as ``benchmarks/cxx/everyday/manifest.toml`` lists it (the
entries a GPU run searches: ``regrapht bench run`` on that manifest). Writes one JSON object
(``--json``) with the commit and the command, and prints one line per file.

    .venv/bin/python scripts/everyday_probe.py --json benchmarks/results/cpu-everyday-probe.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.errors import ReGraphTError
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.tasks.extract import extract_task

MANIFEST = Path(__file__).resolve().parents[1] / "benchmarks" / "cxx" / "everyday" / "manifest.toml"
"""Each file's first function, the entry ``regrapht bench run`` searches on the GPU too."""


def probe(path: Path, function: str) -> dict[str, str]:
    """``{"file", "function", "outcome", "reason"}``: outcome ``code``, ``no_code`` or
    ``refused`` (extraction, with the reference validated under AddressSanitizer)."""
    source = path.read_text(encoding="utf-8")
    row = {"file": path.name, "function": function}
    try:
        task = extract_task(source, "cpp", function=function, origin=path.name, validate=True)
    except ReGraphTError as err:
        return {**row, "outcome": "refused", "reason": str(err).splitlines()[0]}
    proposal = rewriter_propose_fn()(
        ProposeRequest(task, "sequential", "parallelization", task.source)
    )
    if proposal.code is None:
        return {**row, "outcome": "no_code", "reason": proposal.message}
    return {**row, "outcome": "code", "reason": ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    rows = [probe(entry.file, entry.function) for entry in load_manifest(MANIFEST)]
    for row in rows:
        print(f"{row['file']:10} {row['function']:16} {row['outcome']:8} {row['reason'][:90]}")
    coded = sum(row["outcome"] == "code" for row in rows)
    print(f"{coded} of {len(rows)} get code from the first step")
    if args.json is not None:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        result = {
            "benchmark": "everyday C++: extraction and the first step, rewriters only",
            "device": None,
            "host": "cpu",
            "commit": commit,
            "command": " ".join(["scripts/everyday_probe.py", *sys.argv[1:]]),
            "functions": len(rows),
            "code": coded,
            "rows": rows,
        }
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
