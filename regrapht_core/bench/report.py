"""``regrapht bench report``: one results JSON of ``regrapht bench`` as Markdown with plots.

Everything shown is derived from the results document alone, so a report can be rebuilt
from a committed JSON at any time and two reports of the same JSON are byte-identical
(fixed SVG hash salt, no date in the SVG metadata, matplotlib's default style whatever the
user's matplotlibrc says). Tiers follow the paper: the length of the best verified path
says how hard a task was, and a task nobody solved has no path to measure.
"""

from __future__ import annotations

import io
import math
import re
import statistics
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from matplotlib import style
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import NullFormatter, StrMethodFormatter

from regrapht_core.bench.runner import METHODS, summarise
from regrapht_core.files import atomic_write

__all__ = [
    "TIERS",
    "best_curve",
    "default_report_dir",
    "head_to_head",
    "on_common_reference",
    "summary_by",
    "tier_of",
    "write_report",
]

TIERS = ("easy", "medium", "hard", "unsolved")

Run = dict[str, Any]
Summary = dict[str, dict[str, Any]]

SPEEDUP_PLOT = "speedup_per_task.svg"
TIER_PLOT = "pass_rate_per_tier.svg"
BEST_PLOT = "best_vs_candidates.svg"

_SVG_RC = {"svg.hashsalt": "regrapht-bench-report", "svg.fonttype": "none"}
"""A fixed salt keeps hatch and clip ids stable between runs; text stays text (not glyph
paths) so the report's labels can be searched and checked."""

_NO_ANSWER = "no answer"


def tier_of(runs: Iterable[Run]) -> dict[str, str]:
    """Per task, how deep the fastest verified answer had to go (any method found it)."""
    best: dict[str, Run | None] = {}
    for run in runs:
        current = best.setdefault(run["task"], None)
        if run["passed"] and (current is None or run["speedup"] > current["speedup"]):
            best[run["task"]] = run
    return {
        task: "unsolved" if run is None else _tier_for_depth(len(run["techniques"]))
        for task, run in best.items()
    }


def _tier_for_depth(depth: int) -> str:
    if depth <= 2:
        return "easy"
    return "medium" if depth <= 5 else "hard"


def summary_by(runs: Iterable[Run], key: Callable[[Run], str]) -> dict[str, Summary]:
    """The suite's own per-method summary within each group, so a tier's or family's
    numbers mean exactly what the overall ones do."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(key(run), []).append(run)
    return {group: summarise(rows) for group, rows in groups.items()}


def on_common_reference(runs: Iterable[Run]) -> list[Run]:
    """Each run judged against its task's common reference: the median of the sequential
    code's times that the task's jobs measured, one per method.

    Every job times the sequential code itself, and while other searches compile and ask
    the model on the same machine, one task's reference moves by up to 1.8x from one job to
    the next (issue 16's H200 run, hist_u8: 7.07 and 12.50 ms) while the answers' times,
    though of different programs, differ by at most 13% (trans_sigmoid): speedups over each
    job's own reference compare the references more than the methods. Here a passed answer's
    speedup is the common reference over its time, and it stays passed only if that is
    above 1: no method is credited with an answer its job did not offer, nor with one that
    was faster only than a slow measurement. Runs without the times keep their own numbers
    (``own_speedup`` keeps the job's)."""
    runs = list(runs)
    references: dict[str, list[float]] = {}
    for run in runs:
        if run.get("reference_ms"):
            references.setdefault(run["task"], []).append(run["reference_ms"])
    judged = []
    for run in runs:
        times = references.get(run["task"])
        if not run["passed"] or not times or not run.get("best_ms"):
            judged.append(run)
            continue
        speedup = statistics.median(times) / run["best_ms"]
        common = {"own_speedup": run["speedup"], "passed": speedup > 1.0}
        if speedup > 1.0:
            judged.append(run | common | {"speedup": speedup})
        else:
            why = f"{speedup:.2f}x against the task's common reference ({run['speedup']:.2f}x own)"
            judged.append(run | common | {"speedup": None, "failure": why})
    return judged


LEVEL = 1.05
"""Answers within 5% of each other count as level: the threshold of docs/mining.md's re-timed
seed-against-mined comparison, so the two comparisons read alike."""


def head_to_head(runs: Iterable[Run], first: str, other: str) -> dict[str, Any]:
    """``first`` against ``other`` on the tasks both ran: their geomeans over those tasks
    (1.0 where no faster answer came, as in geomean (all)) and how many tasks each was
    faster on by more than ``LEVEL``. While a run is still partial, or when methods were
    cut on different tasks, only a comparison on the same tasks says which method is ahead:
    the summaries average over different task sets."""
    value: dict[tuple[str, str], float] = {}
    for run in runs:
        value[run["task"], run["method"]] = run["speedup"] if run["passed"] else 1.0
    tasks = [task for (task, method) in value if method == first and (task, other) in value]
    pairs = [(value[task, first], value[task, other]) for task in tasks]
    return {
        "tasks": len(pairs),
        "first": statistics.geometric_mean(a for a, _ in pairs) if pairs else None,
        "other": statistics.geometric_mean(b for _, b in pairs) if pairs else None,
        "faster": sum(1 for a, b in pairs if a > b * LEVEL),
        "slower": sum(1 for a, b in pairs if b > a * LEVEL),
    }


def default_report_dir(document: dict[str, Any], results_root: Path) -> Path:
    """One folder per day and device, so reports of different GPUs never overwrite."""
    date = str(document["started"]).split("T", 1)[0]
    device = document.get("device")
    slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-") if device else "cpu"
    return results_root / f"{date}-{slug}"


def write_report(document: dict[str, Any], out_dir: Path) -> Path:
    """Write ``report.md`` and its three SVG plots into ``out_dir``; returns the report.
    Everything but the first summary is on the common reference (``on_common_reference``)."""
    runs = on_common_reference(document["runs"])
    methods = _methods(document)
    tasks = list(dict.fromkeys(run["task"] for run in runs))
    tiers = tier_of(runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    with _plot_style():
        _save(_speedup_figure(runs, tasks, methods), out_dir / SPEEDUP_PLOT)
        _save(_tier_figure(runs, tiers, methods), out_dir / TIER_PLOT)
        _save(_best_figure(runs, methods), out_dir / BEST_PLOT)
    path = out_dir / "report.md"
    text = "\n".join(_markdown(document, runs, tasks, tiers, methods)) + "\n"
    atomic_write(path, text.encode("utf-8"))
    return path


def _methods(document: dict[str, Any]) -> list[str]:
    """The configured order first (the order the suite ran them), then any others a merged
    or hand-edited file holds."""
    configured = document.get("config", {}).get("methods", [])
    return list(dict.fromkeys([*configured, *(run["method"] for run in document["runs"])]))


def _color(method: str, methods: list[str]) -> str:
    """A method keeps its colour in every plot and every report, whichever methods ran."""
    index = METHODS.index(method) if method in METHODS else len(METHODS) + methods.index(method)
    return f"C{index % 10}"


# --- plots ---------------------------------------------------------------------------------


@contextmanager
def _plot_style() -> Iterator[None]:
    """matplotlib's defaults rather than the user's matplotlibrc, which would change the
    bytes of the plots from one machine to the next."""
    with style.context(_SVG_RC, after_reset=True):
        yield


def _save(figure: Figure, path: Path) -> None:
    """A ``Figure`` made without pyplot is registered nowhere, so nothing is left open once
    it is written; the bytes go through ``atomic_write`` like every file the user keeps."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    atomic_write(path, buffer.getvalue())


def _speedup_figure(runs: list[Run], tasks: list[str], methods: list[str]) -> Figure:
    bars = len(tasks) * len(methods)
    figure = Figure(figsize=(min(24.0, max(6.0, 0.3 * bars + 2.0)), 4.5))
    figure.set_layout_engine("constrained")
    axes = figure.add_subplot()
    by_pair = {(run["task"], run["method"]): run for run in runs}
    speedups = [run["speedup"] for run in runs if run["passed"]]
    floor = min([*speedups, 1.0]) / 2
    width = 0.8 / max(1, len(methods))
    for i, task in enumerate(tasks):
        for j, method in enumerate(methods):
            run = by_pair.get((task, method))
            if run is not None:
                x = i + (j - (len(methods) - 1) / 2) * width
                _speedup_bar(
                    axes, run, x=x, width=width, floor=floor, color=_color(method, methods)
                )
    _speedup_axis(axes)
    axes.set_ylim(floor, max([*speedups, 1.0]) * 1.5)
    axes.set_ylabel("speedup of the answer (log)")
    _label_groups(axes, tasks, rotate=True)
    handles = [
        *_method_handles(methods),
        Patch(facecolor="none", edgecolor="gray", hatch="//", label=_NO_ANSWER),
    ]
    axes.legend(handles=handles, fontsize="small")
    return figure


def _speedup_bar(axes: Axes, run: Run, *, x: float, width: float, floor: float, color: str) -> None:
    """A failed run is a hatched stub at the axis bottom: visibly there and visibly nothing,
    where a missing bar would read as "not run"."""
    gid = f"speedup--{run['method']}--{run['task']}"
    if run["passed"]:
        axes.bar(x, run["speedup"] - floor, width, bottom=floor, color=color, gid=gid)
    else:
        axes.bar(
            x,
            floor * 0.3,
            width,
            bottom=floor,
            facecolor="none",
            edgecolor=color,
            hatch="//",
            gid=gid,
        )


def _tier_figure(runs: list[Run], tiers: dict[str, str], methods: list[str]) -> Figure:
    figure = Figure(figsize=(6.5, 4.0))
    figure.set_layout_engine("constrained")
    axes = figure.add_subplot()
    summary = summary_by(runs, lambda run: tiers[run["task"]])
    shown = [tier for tier in TIERS if tier in summary]
    width = 0.8 / max(1, len(methods))
    for i, tier in enumerate(shown):
        for j, method in enumerate(methods):
            if (stats := summary[tier].get(method)) is not None:
                x = i + (j - (len(methods) - 1) / 2) * width
                color = _color(method, methods)
                axes.bar(x, stats["pass_at_1"], width, color=color, gid=f"pass--{method}--{tier}")
    counts = {tier: sum(1 for t in tiers.values() if t == tier) for tier in shown}
    _label_groups(axes, [f"{tier} ({counts[tier]})" for tier in shown], rotate=False)
    axes.set_ylim(0.0, 1.05)
    axes.set_ylabel("pass@1")
    axes.set_xlabel("tier (tasks)")
    axes.legend(handles=_method_handles(methods), fontsize="small")
    return figure


def _best_figure(runs: list[Run], methods: list[str]) -> Figure:
    figure = Figure(figsize=(6.5, 4.0))
    figure.set_layout_engine("constrained")
    axes = figure.add_subplot()
    drawn = []
    for method in methods:
        curve = best_curve(run for run in runs if run["method"] == method)
        if curve:
            ks = range(1, len(curve) + 1)
            axes.plot(ks, curve, color=_color(method, methods), gid=f"best--{method}")
            drawn.append(method)
    _speedup_axis(axes)
    axes.set_xlabel("candidates spent")
    axes.set_ylabel("geomean best verified speedup (log)")
    if drawn:
        axes.legend(handles=_method_handles(drawn), fontsize="small")
    else:
        message = "no run records best_by_candidate"
        axes.text(0.5, 0.5, message, ha="center", transform=axes.transAxes)
    return figure


def best_curve(runs: Iterable[Run]) -> list[float]:
    """Geometric mean over tasks of the best verified speedup after k candidates.

    A task without a verified candidate yet counts as the original program (1.0), and a
    search that stopped early keeps its last best, so every task weighs the same at every k.
    """
    series = [run["best_by_candidate"] for run in runs if "best_by_candidate" in run]
    length = max((len(values) for values in series), default=0)
    return [
        math.exp(statistics.fmean(math.log(_best_after(values, k)) for values in series))
        for k in range(1, length + 1)
    ]


def _best_after(values: list[float | None], k: int) -> float:
    best = values[min(k, len(values)) - 1] if values else None
    return 1.0 if best is None else best


def _speedup_axis(axes: Axes) -> None:
    """Powers of two labelled "4x" read as speedups, where matplotlib's default writes
    exponents; the dashed line at 1x separates faster from slower."""
    axes.set_yscale("log", base=2)
    axes.yaxis.set_major_formatter(StrMethodFormatter("{x:g}x"))
    axes.yaxis.set_minor_formatter(NullFormatter())
    axes.axhline(1.0, color="black", linestyle="--", linewidth=0.8)


def _label_groups(axes: Axes, labels: list[str], *, rotate: bool) -> None:
    axes.set_xticks(range(len(labels)))
    if rotate:
        axes.set_xticklabels(labels, rotation=45, ha="right", fontsize="small")
    else:
        axes.set_xticklabels(labels)


def _method_handles(methods: list[str]) -> list[Patch]:
    return [Patch(color=_color(method, methods), label=method) for method in methods]


# --- Markdown ------------------------------------------------------------------------------


def _markdown(
    document: dict[str, Any],
    runs: list[Run],
    tasks: list[str],
    tiers: dict[str, str],
    methods: list[str],
) -> Iterator[str]:
    yield f"# {document.get('benchmark', 'regrapht bench')}"
    yield ""
    yield from _provenance(document)
    yield (
        "Copy-bound: tasks whose arguments take longer to copy to the GPU and back, at the "
        "measured copy rates, than the sequential code takes; no per-call CUDA version can "
        "be faster end to end on them. Geomean (all): over every task, 1.00x where no faster "
        "answer came (the user keeps the sequential code): the one that compares methods "
        "passing different tasks."
    )
    yield ""
    yield from _overall(document["runs"], methods, "Summary, each job against its own reference")
    yield (
        "Every job times the sequential code again; from here on, each task's answers are "
        "judged against one common reference, the median of its jobs' reference times, and an "
        "answer passes only if its job passed and it beats that reference too."
    )
    yield ""
    yield from _overall(runs, methods, "Summary on the common reference")
    yield from _head_to_head(runs, tiers, methods)
    yield from _coverage(document["runs"], tasks, methods)
    by_difficulty = sorted(runs, key=lambda run: TIERS.index(tiers[run["task"]]))
    yield from _grouped("By tier", "tier", by_difficulty, lambda run: tiers[run["task"]], methods)
    yield from _grouped("By family", "family", runs, _family, methods)
    yield from _per_task(runs, tasks, tiers, methods)
    yield from _plots(runs)


def _provenance(document: dict[str, Any]) -> Iterator[str]:
    config = document.get("config", {})
    rows = [
        ("device", document.get("device") or "none (no GPU)"),
        ("driver", document.get("driver")),
        ("nvcc", document.get("nvcc")),
        ("model", _model(document)),
        ("commit", ", ".join(document.get("commits") or [str(document.get("commit"))])),
        (
            "engine",
            ", ".join(document.get("engines") or [document.get("engine") or "not recorded"]),
        ),
        ("command", f"`{document.get('command')}`"),
        ("budget", config.get("budget")),
        ("started", document.get("started")),
    ]
    yield "## Provenance"
    yield ""
    yield from _table(["", ""], [[f"**{name}**", str(value)] for name, value in rows])


def _model(document: dict[str, Any]) -> str:
    """The configured model, else the embedded default where one answered (the runner
    records where it ran), else none."""
    named = document.get("config", {}).get("model")
    where = document.get("model_runs_on")
    if named:
        return f"{named} (on {where})" if where else str(named)
    return f"the embedded default (on {where})" if where else "none (rewriters only)"


def _overall(runs: list[Run], methods: list[str], title: str) -> Iterator[str]:
    summary = summarise(runs)
    yield f"## {title}"
    yield ""
    header = ["method", "tasks", "passed", "copy-bound", "pass@1", "geomean (all)"]
    header += ["geomean (passed)", "median (passed)", "passed with ≥ 2 techniques"]
    rows = [
        [
            method,
            str(stats["tasks"]),
            str(stats["passed"]),
            str(stats["copy_bound"]),
            _number(stats["pass_at_1"]),
            _speedup(stats["geomean_speedup_all"]),
            _speedup(stats["geomean_speedup_passed"]),
            _speedup(stats["median_speedup_passed"]),
            _share(_multi_step(runs, method), stats["passed"]),
        ]
        for method in methods
        if (stats := summary.get(method)) is not None
    ]
    yield from _table(header, rows)


def _head_to_head(runs: list[Run], tiers: dict[str, str], methods: list[str]) -> Iterator[str]:
    """The first method (the search) against each other one, overall and per tier, each
    row on the tasks both ran."""
    if len(methods) < 2:
        return
    first = methods[0]
    yield f"## {first} against each method, on the tasks both ran"
    yield ""
    yield (
        f"Geomeans over the tasks both methods ran (1.00x where no faster answer came); "
        f"faster or slower: by more than {LEVEL - 1:.0%}, else level."
    )
    yield ""
    rows = []
    for other in methods[1:]:
        for tier in ("all", *TIERS):
            mine = [run for run in runs if tier == "all" or tiers[run["task"]] == tier]
            duel = head_to_head(mine, first, other)
            if duel["tasks"] == 0:
                continue
            level = duel["tasks"] - duel["faster"] - duel["slower"]
            rows.append(
                [
                    other,
                    tier,
                    str(duel["tasks"]),
                    _speedup(duel["first"]),
                    _speedup(duel["other"]),
                    f"{duel['faster']} / {level} / {duel['slower']}",
                ]
            )
    header = ["against", "tier", "tasks", f"{first} geomean", "its geomean"]
    yield from _table([*header, f"{first} faster / level / slower"], rows)


def _coverage(runs: list[Run], tasks: list[str], methods: list[str]) -> Iterator[str]:
    """What a merged or resumed run may lack or mix: searches never run, and tasks whose
    runs compiled different task sources (the task file changed between commits), which
    would compare methods on different programs."""
    ran = {(run["task"], run["method"]) for run in runs}
    missing = [
        f"{task} ({', '.join(m for m in methods if (task, m) not in ran)})"
        for task in tasks
        if any((task, m) not in ran for m in methods)
    ]
    sources: dict[str, set[str]] = {}
    for run in runs:
        if run.get("source_sha256"):
            sources.setdefault(run["task"], set()).add(run["source_sha256"])
    mixed = sorted(task for task, hashes in sources.items() if len(hashes) > 1)
    yield "## Coverage"
    yield ""
    wanted = {(task, method) for task in tasks for method in methods}
    yield f"{len(ran & wanted)} of {len(wanted)} searches ran."
    if missing:
        yield f"Not run: {'; '.join(missing)}."
    if mixed:
        changed = ", ".join(mixed)
        yield f"Runs of one task compiled different sources (task file changed): {changed}."
    elif sources:
        yield "Every task's runs compiled the same source (`source_sha256`)."
    yield ""


def _multi_step(runs: list[Run], method: str) -> int:
    """Passed answers whose path applied two techniques or more: the search's own claim
    (the paper's) is that it takes many correct steps, not one."""
    mine = (run for run in runs if run["method"] == method and run["passed"])
    return sum(1 for run in mine if len(run["techniques"]) >= 2)


def _share(count: int, total: int) -> str:
    return f"{count} ({count / total:.0%})" if total else "—"


def _grouped(
    title: str, name: str, runs: list[Run], key: Callable[[Run], str], methods: list[str]
) -> Iterator[str]:
    """pass@1 and the two geomeans side by side per method, one row per group (in the order
    the runs first name it), so methods compare along a row."""
    tasks: dict[str, set[str]] = {}
    for run in runs:
        tasks.setdefault(key(run), set()).add(run["task"])
    yield f"## {title}"
    yield ""
    header = [name, "tasks"]
    for method in methods:
        header += [f"{method} pass@1", f"{method} geomean (all)", f"{method} geomean (passed)"]
    rows = []
    for group, by_method in summary_by(runs, key).items():
        row = [group, str(len(tasks[group]))]
        for method in methods:
            stats = by_method.get(method)
            row += (
                [
                    _number(stats["pass_at_1"]),
                    _speedup(stats["geomean_speedup_all"]),
                    _speedup(stats["geomean_speedup_passed"]),
                ]
                if stats
                else ["—", "—", "—"]
            )
        rows.append(row)
    yield from _table(header, rows)


def _per_task(
    runs: list[Run], tasks: list[str], tiers: dict[str, str], methods: list[str]
) -> Iterator[str]:
    by_pair = {(run["task"], run["method"]): run for run in runs}
    family = {run["task"]: _family(run) for run in runs}
    yield "## Per task"
    yield ""
    yield "Speedup of the answer (techniques on its path); on failure, the first words of why."
    yield ""
    rows = [
        [task, family[task], tiers[task]]
        + [_task_cell(by_pair.get((task, method))) for method in methods]
        for task in tasks
    ]
    yield from _table(["task", "family", "tier", *methods], rows)


def _family(run: Run) -> str:
    return str(run["family"]) or "(none)"


def _task_cell(run: Run | None) -> str:
    if run is None:
        return "not run"
    if run["passed"]:
        return f"{_speedup(run['speedup'])} ({len(run['techniques'])})"
    return f"— {(run.get('failure') or '')[:40]}".rstrip()


def _plots(runs: list[Run]) -> Iterator[str]:
    yield "## Plots"
    yield ""
    yield f"![Speedup of each method's answer per task]({SPEEDUP_PLOT})"
    yield ""
    yield f"![pass@1 per tier and method]({TIER_PLOT})"
    yield ""
    yield f"![Best verified speedup against candidates spent]({BEST_PLOT})"
    yield ""
    recorded = sum(1 for run in runs if "best_by_candidate" in run)
    if recorded == 0:
        yield "No run records `best_by_candidate` (results older than the field): the last plot"
        yield "is empty."
    elif recorded < len(runs):
        left_out = f"{len(runs) - recorded} of {len(runs)}"
        yield f"The last plot leaves out the {left_out} runs without `best_by_candidate`."


def _table(header: list[str], rows: list[list[str]]) -> Iterator[str]:
    yield "| " + " | ".join(header) + " |"
    yield "|" + "---|" * len(header)
    for row in rows:
        yield "| " + " | ".join(_cell(value) for value in row) + " |"
    yield ""


def _cell(value: str) -> str:
    """Failure messages and commands may hold pipes and newlines, which would break a row."""
    return value.replace("|", "\\|").replace("\n", " ")


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _speedup(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}x"
