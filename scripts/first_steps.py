"""What the rewriters propose as the first steps of every corpus task, as one digest per task:
a refactor that should change no behaviour is checked by comparing two of these files.

Each task of the manifest is extracted and handed to one ``RewriterProposer`` for the first
step (sequential to parallelization) until it has nothing more to offer; the thinking and
the code of every proposal, in order, make the task's SHA-256. The proposals themselves are
2.7 MB over the corpus, too much to commit; their digests are not, and a digest that
differs names the task to look at (run the proposer on it by hand). A task whose extraction
is refused has the refusal as its digest, so a refactor that starts or stops refusing one
shows too. No GPU: nothing is compiled or timed.

    .venv/bin/python scripts/first_steps.py --json benchmarks/results/cpu-first-steps.json
    .venv/bin/python scripts/first_steps.py --compare benchmarks/results/cpu-first-steps.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import SuiteTask, current_commit, load_manifest, uncommitted
from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.errors import ReGraphTError
from regrapht_core.optimize.rewriter_proposer import RewriterProposer

MANIFEST = Path("benchmarks/corpus/manifest.toml")


def first_steps(entry: SuiteTask) -> list[tuple[str, str]]:
    """Every ``(think, code)`` the rewriters propose for ``entry``'s first step, in order
    (raises the extractor's errors)."""
    task = entry.task()
    proposer = RewriterProposer()
    request = ProposeRequest(task, "sequential", "parallelization", task.source)
    found = []
    while (proposal := proposer(request)).code is not None:
        found.append((proposal.think, proposal.code))
    return found


def digest(steps: Sequence[Sequence[str]]) -> str:
    """SHA-256 of the steps as a JSON list of ``[think, code]`` pairs: the encoding keeps
    the boundaries, so text moved from one proposal to the next changes it. The same
    function reads the full lists a throwaway probe wrote (``{task: [[think, code], ...]}``)."""
    text = json.dumps([list(step) for step in steps], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record(entry: SuiteTask) -> dict[str, Any]:
    """``{"steps", "sha256"}`` for one task; a refused extraction also gives ``refused``
    (its message's first line) and the digest of that message."""
    try:
        steps = first_steps(entry)
    except ReGraphTError as err:
        refused = str(err).splitlines()[0]
        return {"steps": 0, "sha256": digest([("refused", refused)]), "refused": refused}
    return {"steps": len(steps), "sha256": digest(steps)}


def select(entries: Sequence[SuiteTask], only: Sequence[str]) -> list[SuiteTask]:
    """``entries`` named in ``only`` (all of them when it is empty), in manifest order."""
    unknown = sorted(set(only) - {e.name for e in entries})
    if unknown:
        raise SystemExit(f"not in the manifest: {', '.join(unknown)}")
    return [e for e in entries if not only or e.name in only]


def compare(old: dict[str, Any], new: dict[str, Any], *, selected: bool) -> list[str]:
    """One line per task whose digest differs, missing from ``new`` or new in it. With
    ``selected`` (``--only``), the tasks of ``old`` left out of ``new`` are not missing."""
    before, after = old["per_task"], new["per_task"]
    lines = []
    for name in sorted(before.keys() | after.keys()):
        if name not in after:
            if not selected:
                lines.append(f"missing  {name}")
        elif name not in before:
            lines.append(f"new      {name} ({after[name]['steps']} steps)")
        elif before[name]["sha256"] != after[name]["sha256"]:
            counts = f"{before[name]['steps']} -> {after[name]['steps']} steps"
            lines.append(f"differs  {name} ({counts})")
    return lines


def run(manifest: Path, only: Sequence[str], argv: Sequence[str]) -> dict[str, Any]:
    """The results document for the tasks of ``manifest`` (those named in ``only``), run
    with the options ``argv``."""
    per_task = {}
    for entry in select(load_manifest(manifest), only):
        per_task[entry.name] = record(entry)
        print(f"{entry.name:60} {per_task[entry.name]['steps']:4}", flush=True)
    return {
        "benchmark": "the rewriters' first steps (sequential to parallelization) of each task,"
        " as a SHA-256 of every proposal's thinking and code in order",
        "device": "CPU (no GPU: the rewriters' proposals only, nothing compiled or timed)",
        "commit": current_commit(),
        "uncommitted": uncommitted(),
        "command": " ".join(["scripts/first_steps.py", *argv]),
        "manifest": str(manifest),
        "tasks": len(per_task),
        "steps": sum(r["steps"] for r in per_task.values()),
        "per_task": per_task,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="the task manifest")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--compare", type=Path, help="an earlier results file to check against")
    parser.add_argument("--only", action="append", default=[], help="this task only (repeat)")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    document = run(args.manifest, args.only, argv)
    print(f"{document['tasks']} tasks, {document['steps']} steps")
    if args.json is not None:
        args.json.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    if args.compare is None:
        return 0
    old = json.loads(args.compare.read_text(encoding="utf-8"))
    lines = compare(old, document, selected=bool(args.only))
    for line in lines:
        print(line)
    print(f"{len(lines)} tasks differ from {args.compare} (at {old.get('commit', '?')})")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
