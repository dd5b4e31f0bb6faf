"""The search's defaults against a small sweep (issue 16): the exploration constant, the
rollout's epsilon and the depth cap, one at a time around the shipped values, MCGS alone.
The defaults run twice: two runs of one search differ by the timing's noise, and a setting
is better or worse only by more than that.

The sweep runs on train-split tasks of the generated corpus, one per family: tuning on the
suite that the methods are compared on would tune to it. Three phases, so that the GPU
runs only the searches (``scripts/gpu-sweep.sh`` runs them, one process per setting)::

    python3 -m benchmarks.sweep_search tasks benchmarks/corpus/manifest.toml --count 12
    python3 -m benchmarks.sweep_search settings  # one line per process: name, --set/--repeat
    python3 -m benchmarks.sweep_search run MANIFEST --set exploration=2 --only TASK ... \\
        --budget 30 --time-limit 120 --json F [--resume] [--no-model] [--gpu N]
    python3 -m benchmarks.sweep_search merge F ... --json OUT

``run`` is ``regrapht bench run --method mcgs`` with the search's settings changed; its file
records them (``search``) and its real command. ``merge`` joins the settings' files into one
``regrapht bench`` document whose methods are the settings, the default first, so
``regrapht bench report OUT`` sets the default against each setting on the tasks both ran,
per tier, on each task's common reference. The search's settings are not options of the
engine's command line: this is a study of them, not a knob for users.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from regrapht_core.bench.runner import load_manifest, merge_arms, run_suite
from regrapht_core.errors import ConfigError, ReGraphTError
from regrapht_core.files import atomic_write
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.search.config import SearchConfig

__all__ = ["SWEPT", "Setting", "main", "merge", "setting_name", "settings", "sweep_tasks"]

SWEPT: dict[str, tuple[type, tuple[float, ...]]] = {
    "exploration": (float, (0.5, 2.0)),
    "rollout_epsilon": (float, (0.05, 0.5)),
    "depth_cap": (int, (3, 8)),
}
"""Each swept setting, its type and the values tried besides the default: half and twice
the exploration constant, a nearly greedy and a half-random rollout, shorter and longer
paths."""

_DEFAULTS = SearchConfig()
COMMAND = "python3 -m benchmarks.sweep_search"


class Setting(NamedTuple):
    """One process of the sweep: the settings it changes, and which repeat it is."""

    name: str
    changed: dict[str, float]
    repeat: int = 0

    def options(self) -> list[str]:
        """Its options for ``run``."""
        sets = [f"--set {key}={value:g}" for key, value in self.changed.items()]
        return sets + ([f"--repeat {self.repeat}"] if self.repeat else [])


def settings() -> list[Setting]:
    """The default first, then the default again: the same search timed in another process,
    whose answers differ from the first's by the timing's noise alone, the yardstick for
    every other setting's difference. Then one setting changed at a time."""
    changed = [{key: kind(value)} for key, (kind, values) in SWEPT.items() for value in values]
    return [
        Setting("default", {}),
        Setting(setting_name({}, repeat=1), {}, repeat=1),
        *(Setting(setting_name(s), s) for s in changed),
    ]


def setting_name(search: dict[str, float], repeat: int = 0) -> str:
    """``default``, or the settings that differ from it (``exploration-0.5``), with the
    repeat if any (``default-repeat1``)."""
    differ = [
        f"{key.replace('_', '-')}-{search[key]:g}"
        for key in SWEPT
        if key in search and search[key] != getattr(_DEFAULTS, key)
    ]
    return ("+".join(differ) or "default") + (f"-repeat{repeat}" if repeat else "")


def sweep_tasks(manifest: Path, count: int, seed: int = 0) -> list[str]:
    """``count`` train-split tasks, each of another family (the first of the family in the
    manifest), the families drawn with a fixed seed; in manifest order."""
    first: dict[str, str] = {}
    for task in load_manifest(manifest):
        if task.split == "train":
            first.setdefault(task.family, task.name)
    families = sorted(first)
    chosen = set(random.Random(seed).sample(families, min(count, len(families))))
    return [name for family, name in first.items() if family in chosen]


def _parse_set(text: str) -> tuple[str, float]:
    key, sep, value = text.partition("=")
    if not sep or key not in SWEPT:
        raise argparse.ArgumentTypeError(f"{text!r}: give KEY=VALUE with KEY in {sorted(SWEPT)}")
    try:
        return key, SWEPT[key][0](value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r}: {err}") from err


def _search_record(search: SearchConfig) -> dict[str, float]:
    return {key: getattr(search, key) for key in SWEPT}


def run(args: argparse.Namespace, command: str) -> int:
    """MCGS over the chosen tasks with the search's settings changed as ``--set`` says."""
    job = JobSettings.from_options(
        budget=args.budget,
        time_limit_s=args.time_limit,
        use_model=not args.no_model,
        gpu_index=args.gpu,
        seed=args.seed,
    )
    try:
        job = replace(job, search=replace(job.search, **dict(args.set)))
    except ValueError as err:
        raise SystemExit(f"sweep_search: {err}") from err
    stamp = {"command": command, "search": _search_record(job.search), "repeat": args.repeat}
    wanted = set(args.only or ())
    tasks = [t for t in load_manifest(args.manifest) if not wanted or t.name in wanted]
    unknown = sorted(wanted - {t.name for t in tasks})
    if unknown:
        raise SystemExit(f"not tasks of {args.manifest}: {', '.join(unknown)}")
    earlier = None
    if args.resume and args.json.exists():
        earlier = json.loads(args.json.read_text(encoding="utf-8"))
        if _name(earlier) != _name(stamp):
            raise SystemExit(f"{args.json} holds another setting: {_name(earlier)}")
    optimizer = Optimizer(job)

    def shown(record: dict[str, Any]) -> None:
        speedup = record.get("speedup")
        shown = f"{speedup:.2f}x" if speedup else str(record.get("failure", ""))[:60]
        sys.stdout.write(f"{record['task']:<40} {shown}\n")
        sys.stdout.flush()

    run_suite(
        tasks, ["mcgs"], optimizer, out=args.json, on_done=shown, resume=earlier, header=stamp
    )
    return 0


def merge(documents: Sequence[dict[str, Any]], command: str) -> dict[str, Any]:
    """One ``regrapht bench`` document, each setting a method (the default first), merged
    as ``regrapht bench merge --arm`` merges arms: the same engine, GPU and settings but the
    swept ones (``bench.runner.merge_arms`` refuses others; the depth cap, the one swept
    setting ``config`` records, maps each setting to its cap)."""
    named = sorted(
        ((_name(d), d) for d in documents),
        key=lambda pair: (pair[0] != "default", not pair[0].startswith("default"), pair[0]),
    )
    names = [name for name, _ in named]
    if len(set(names)) != len(names):
        raise ConfigError(f"two files of one setting: {names}")
    documents = [document for _, document in named]
    merged = merge_arms(names, documents, names, command, setting="depth_cap")
    search = {name: document["search"] for name, document in named}
    for run in merged["runs"]:
        run["search"] = search[run["method"]]
    for part, (_, document) in zip(merged["parts"], named, strict=True):
        part |= {"search": document["search"], "repeat": document.get("repeat", 0)}
    benchmark = "the search's defaults against a sweep: MCGS per setting, pass@1 and speedup@1"
    return merged | {"benchmark": f"{benchmark} (benchmarks/sweep_search.py)"}


def _name(document: dict[str, Any]) -> str:
    return setting_name(document.get("search", {}), document.get("repeat", 0))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    phases = parser.add_subparsers(dest="phase", required=True)
    pick = phases.add_parser("tasks", help="the sweep's tasks, one name per line")
    pick.add_argument("manifest", type=Path)
    pick.add_argument("--count", type=int, default=12)
    phases.add_parser("settings", help="the sweep's settings: a name and its --set options")
    search = phases.add_parser("run", help="MCGS with changed settings (GPU)")
    search.add_argument("manifest", type=Path)
    search.add_argument("--set", action="append", type=_parse_set, default=[], metavar="K=V")
    search.add_argument("--only", action="append", metavar="TASK")
    search.add_argument("--budget", type=int, default=30)
    search.add_argument("--time-limit", type=float, default=None)
    search.add_argument("--no-model", action="store_true")
    search.add_argument("--gpu", type=int, default=None)
    search.add_argument("--seed", type=int, default=0)
    search.add_argument("--repeat", type=int, default=0, help="a repeat of the same setting")
    search.add_argument("--json", type=Path, required=True)
    search.add_argument("--resume", action="store_true")
    join = phases.add_parser("merge", help="the settings' files as one bench document")
    join.add_argument("files", nargs="+", type=Path)
    join.add_argument("--json", type=Path, required=True)
    args = parser.parse_args(argv)
    command = f"{COMMAND} {shlex.join(argv)}"
    if args.phase == "tasks":
        sys.stdout.write("".join(f"{name}\n" for name in sweep_tasks(args.manifest, args.count)))
    elif args.phase == "settings":
        for setting in settings():
            sys.stdout.write(" ".join([setting.name, *setting.options()]) + "\n")
    else:
        try:
            if args.phase == "run":
                return run(args, command)
            documents = [json.loads(path.read_text(encoding="utf-8")) for path in args.files]
            merged = merge(documents, command)
        except ReGraphTError as err:  # the engine's errors, as a message without a traceback
            raise SystemExit(f"sweep_search: {err}") from err
        atomic_write(args.json, (json.dumps(merged, indent=1) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
