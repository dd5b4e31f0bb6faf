"""Mutation fuzz of the source rewrites extraction applies (``SOURCE_REWRITES``): on damaged
source, every rewrite must neither raise nor change the number of lines.

Extraction runs each rewrite on whatever the user's file holds, half-typed code included
(the editor extracts as one types), and its messages and ``line`` keep pointing into the
file only because no rewrite adds or removes a line. Each C++ file is damaged a few times
(1 to 4 spans deleted, reversed, or given a stray token such as ``{``, ``++`` or
``while (i < n) {``), and every rewrite runs on every function the damaged file still
parses into. A failure is ``ERR`` (it raised) or ``LINES`` (its output has another number
of lines). The mutations come from ``random.Random(--seed)``: a failure is reproduced by
running the same seed over the same files. Exits 1 when any rewrite failed. No GPU.

    .venv/bin/python scripts/fuzz_rewrites.py --json benchmarks/results/cpu-fuzz-rewrites.json
"""

from __future__ import annotations

import argparse
import glob
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tree_sitter import Node

from regrapht_core.bench.runner import current_commit, uncommitted
from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import parse_source, walk
from regrapht_core.tasks.extract import SOURCE_REWRITES

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = ("benchmarks/cxx/**/*.cpp", "benchmarks/corpus/**/*.cpp", "tests/**/*.cpp")
"""Relative to the repository: the examples, the generated corpus and the tests' files."""
TOKENS = (
    *("(", ")", "{", "}", ";", "++", "--", "*", "&", "[", "]", "auto ", "i", "+= 2", " = "),
    *("-> ", "::", "<", ">", "while (i < n) {", ".begin()", "push_back(", "return;", "\n"),
)
"""What a half-typed edit leaves: brackets, operators, a loop header, a call begun."""

Rewrite = Callable[[str, Node], str]


def mutate(source: str, rng: random.Random) -> str:
    """``source`` with 1 to 4 spans of up to 8 characters deleted, reversed, or given a
    token of :data:`TOKENS` before them."""
    for _ in range(rng.randint(1, 4)):
        if not source:
            break
        a = rng.randrange(len(source))
        b = min(len(source), a + rng.randint(1, 8))
        op = rng.random()
        if op < 0.4:
            source = source[:a] + source[b:]
        elif op < 0.7:
            source = source[:a] + rng.choice(TOKENS) + source[a:]
        else:
            source = source[:a] + source[a:b][::-1] + source[b:]
    return source


def _functions(source: str) -> list[Node]:
    root = parse_source(source, SourceLanguage.CPP).root_node
    return [node for node in walk(root) if node.type == "function_definition"]


def check(source: str, index: int, rewrite: Rewrite) -> tuple[str, str] | None:
    """``(kind, message)`` when ``rewrite`` fails on the ``index``-th function of
    ``source``, parsed afresh (so no rewrite sees another's tree), else ``None``."""
    try:
        written = rewrite(source, _functions(source)[index])
    except Exception as err:  # any exception is the finding
        return "ERR", f"{type(err).__name__}: {str(err)[:150]}"
    if written.count("\n") != source.count("\n"):
        return "LINES", f"{source.count(chr(10))} lines became {written.count(chr(10))}"
    return None


def _name(rewrite: Rewrite) -> str:
    return str(getattr(rewrite, "__name__", repr(rewrite)))


def _shown(path: Path) -> str:
    """``path`` relative to the repository where it is inside it."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def fuzz(
    files: Sequence[Path], rewrites: Sequence[Rewrite], rng: random.Random, trials: int
) -> tuple[int, list[dict[str, str]]]:
    """How many (damaged file, function, rewrite) runs there were, and the failures:
    ``{"file", "rewrite", "kind", "message"}`` each."""
    runs, failures = 0, []
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        for _ in range(trials):
            damaged = mutate(source, rng)
            for index in range(len(_functions(damaged))):
                for rewrite in rewrites:
                    runs += 1
                    failed = check(damaged, index, rewrite)
                    if failed is not None:
                        kind, message = failed
                        shown, name = _shown(path), _name(rewrite)
                        failures.append(
                            {"file": shown, "rewrite": name, "kind": kind, "message": message}
                        )
                        print(kind, shown, name, message, flush=True)
    return runs, failures


def matching(patterns: Sequence[str]) -> list[Path]:
    """The files the glob ``patterns`` match (``**`` included), relative to the repository
    unless absolute, sorted and each once."""
    # glob.glob rather than Path.glob: it takes absolute patterns and, as the shell, skips
    # hidden files and folders (Path.glob does not).
    found = {f for p in patterns for f in glob.glob(p, root_dir=ROOT, recursive=True)}  # noqa: PTH207
    return [Path(f) if Path(f).is_absolute() else ROOT / f for f in sorted(found)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="of the mutations (default 0)")
    parser.add_argument("--trials", type=int, default=6, help="damaged copies per file")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument(
        "--files", action="append", help="a glob of C++ files (repeat; default the three)"
    )
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    patterns = args.files or list(PATTERNS)
    files = matching(patterns)
    runs, failures = fuzz(files, SOURCE_REWRITES, random.Random(args.seed), args.trials)
    print("runs", runs, "bad", len(failures))
    if args.json is not None:
        document: dict[str, Any] = {
            "benchmark": "mutation fuzz of the source rewrites: none may raise or change the"
            " number of lines on damaged C++",
            "device": "CPU (no GPU: parsing and rewriting only)",
            "commit": current_commit(),
            "uncommitted": uncommitted(),
            "command": " ".join(["scripts/fuzz_rewrites.py", *argv]),
            "seed": args.seed,
            "trials": args.trials,
            "patterns": patterns,
            "rewrites": [_name(r) for r in SOURCE_REWRITES],
            "files": len(files),
            "runs": runs,
            "bad": len(failures),
            "failures": failures,
        }
        args.json.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
