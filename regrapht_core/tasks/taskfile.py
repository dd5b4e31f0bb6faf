"""Task files: a ``Task`` as TOML, read strictly and written back losslessly.

A task file is something a user edits by hand and the benchmark suite stores, so every
unknown key, wrong type or inconsistent expression is reported with the file and the
field that holds it rather than surfacing later as a confusing verifier failure.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from regrapht_core.contracts.task import (
    ArgSpec,
    Distribution,
    LaunchSpec,
    ParamKind,
    Role,
    SizeBinding,
    SourceLanguage,
    Task,
    TaskMode,
    TimingMode,
    Tolerance,
)
from regrapht_core.errors import TaskError
from regrapht_core.tasks.check import check_task
from regrapht_core.tasks.toml_out import TomlValue, toml_key, toml_value

__all__ = ["FORMAT_VERSION", "dump_task", "load_task", "loads_task", "save_task"]

FORMAT_VERSION = 1

_TOP = {
    "version",
    "name",
    "entry",
    "signature",
    "returns",
    "mode",
    "timing_mode",
    "language",
    "source",
    "source_file",
    "tolerance",
    "args",
    "timing_size",
    "correctness_sizes",
    "launch",
}
_ARG = {"name", "kind", "ctype", "role", "length", "value", "dist"}
_DIST_NUMBERS = ("lo", "hi", "mean", "std")
_E = TypeVar("_E", bound=StrEnum)


def load_task(path: Path | str) -> Task:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskError(f"{path}: cannot read the task file ({exc.strerror})") from None
    return loads_task(text, origin=str(path), base_dir=path.parent)


def loads_task(text: str, *, origin: str = "<task>", base_dir: Path | None = None) -> Task:
    """Parse and check; ``base_dir`` resolves ``source_file`` (default: the working dir)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{origin}: not valid TOML: {exc}") from None
    r = _Reader(origin)
    r.keys(doc, _TOP, "")
    version = doc.get("version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise TaskError(
            f"{origin}: version: {version!r} is not a task format this tool reads "
            f"(expected {FORMAT_VERSION})"
        )
    task = Task(
        name=r.text(doc, "name"),
        source=_source(doc, r, base_dir or Path.cwd()),
        entry=r.text(doc, "entry"),
        signature=r.text(doc, "signature"),
        args=tuple(_arg(a, r, f"args[{i}]") for i, a in enumerate(r.tables(doc, "args"))),
        correctness_sizes=tuple(
            _binding(b, r, f"correctness_sizes[{i}]")
            for i, b in enumerate(r.tables(doc, "correctness_sizes"))
        ),
        timing_size=_binding(r.table(doc, "timing_size"), r, "timing_size"),
        returns=r.text(doc, "returns", "void"),
        mode=r.enum(doc, "mode", TaskMode, TaskMode.SEQUENTIAL_TO_CUDA),
        tolerance=_tolerance(doc, r),
        timing_mode=r.enum(doc, "timing_mode", TimingMode, TimingMode.END_TO_END),
        launch=_launch(doc, r),
        language=r.enum(doc, "language", SourceLanguage, SourceLanguage.CPP),
    )
    check_task(task, origin)
    return task


def dump_task(task: Task, *, source_file: str | None = None) -> str:
    """TOML text; with ``source_file`` the source is referenced instead of inlined."""
    lines = [f"version = {FORMAT_VERSION}"]
    top: dict[str, TomlValue] = {
        "name": task.name,
        "entry": task.entry,
        "signature": task.signature,
        "returns": task.returns,
        "mode": task.mode.value,
        "timing_mode": task.timing_mode.value,
        "language": task.language.value,
    }
    if source_file is None:
        top["source"] = task.source
    else:
        top["source_file"] = source_file
    lines += [f"{k} = {toml_value(v)}" for k, v in top.items()]
    lines += ["", "[tolerance]", f"atol = {toml_value(task.tolerance.atol)}"]
    lines.append(f"rtol = {toml_value(task.tolerance.rtol)}")
    lines += ["", "[timing_size]", *_binding_lines(task.timing_size)]
    if task.launch is not None:
        launch = task.launch
        lines += ["", "[launch]", f"kernel = {toml_value(launch.kernel)}"]
        lines.append(f"grid = {toml_value(list(launch.grid))}")
        lines.append(f"block = {toml_value(list(launch.block))}")
        lines.append(f"shared_bytes = {toml_value(launch.shared_bytes)}")
    for arg in task.args:
        lines += ["", "[[args]]", *_arg_lines(arg)]
    for binding in task.correctness_sizes:
        lines += ["", "[[correctness_sizes]]", *_binding_lines(binding)]
    return "\n".join(lines) + "\n"


def save_task(task: Task, path: Path | str, *, source_file: str | None = None) -> None:
    """Write the task file, and the source beside it when ``source_file`` is given."""
    path = Path(path)
    if source_file is not None:
        (path.parent / source_file).write_text(task.source, encoding="utf-8")
    path.write_text(dump_task(task, source_file=source_file), encoding="utf-8")


def _arg_lines(arg: ArgSpec) -> list[str]:
    fields: dict[str, TomlValue] = {
        "name": arg.name,
        "kind": arg.kind.value,
        "ctype": arg.ctype,
        "role": arg.role.value,
    }
    if arg.length is not None:
        fields["length"] = arg.length
    if arg.value is not None:
        fields["value"] = arg.value
    if arg.kind is not ParamKind.SCALAR:
        d = arg.dist
        default = Distribution()
        dist: dict[str, TomlValue] = {"kind": d.kind}
        dist |= {k: getattr(d, k) for k in _DIST_NUMBERS if getattr(d, k) != getattr(default, k)}
        dist |= dict(d.params)
        fields["dist"] = dist
    return [f"{k} = {toml_value(v)}" for k, v in fields.items()]


def _binding_lines(binding: SizeBinding) -> list[str]:
    return [f"{toml_key(k)} = {toml_value(v)}" for k, v in binding.items()]


def _source(doc: dict[str, Any], r: _Reader, base_dir: Path) -> str:
    if ("source" in doc) == ("source_file" in doc):
        raise TaskError(f"{r.origin}: source: give exactly one of 'source' and 'source_file'")
    if "source" in doc:
        return r.text(doc, "source")
    rel = r.text(doc, "source_file")
    path = base_dir / rel
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskError(
            f"{r.origin}: source_file: cannot read {path} ({exc.strerror}); the path is "
            "relative to the task file"
        ) from None


def _arg(doc: dict[str, Any], r: _Reader, at: str) -> ArgSpec:
    r.keys(doc, _ARG, at)
    kind = r.enum(doc, "kind", ParamKind, None, at)
    return ArgSpec(
        name=r.ident(doc, "name", at),
        kind=kind,
        ctype=r.text(doc, "ctype", None, at),
        role=r.enum(doc, "role", Role, Role.IN, at),
        length=r.opt_str(doc, "length", at),
        value=r.opt_str(doc, "value", at),
        dist=_dist(doc.get("dist", {}), r, f"{at}.dist") if "dist" in doc else Distribution(),
    )


def _dist(doc: Any, r: _Reader, at: str) -> Distribution:
    if not isinstance(doc, dict):
        raise TaskError(f"{r.origin}: {at}: must be a table")
    numbers = {k: r.number(doc, k, at) for k in _DIST_NUMBERS if k in doc}
    params = []
    for key, value in doc.items():
        if key in (*_DIST_NUMBERS, "kind"):
            continue
        if not isinstance(value, str):
            raise TaskError(f"{r.origin}: {at}.{key}: parameters must be strings")
        params.append((key, value))
    return Distribution(kind=r.text(doc, "kind", "uniform", at), params=tuple(params), **numbers)


def _binding(doc: dict[str, Any], r: _Reader, at: str) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for key in doc:
        if not key.isidentifier():
            raise TaskError(f"{r.origin}: {at}.{key}: size names must be identifiers")
        out[key] = r.number(doc, key, at)
    return out


def _tolerance(doc: dict[str, Any], r: _Reader) -> Tolerance:
    if "tolerance" not in doc:
        return Tolerance()
    table = r.table(doc, "tolerance")
    r.keys(table, {"atol", "rtol"}, "tolerance")
    return Tolerance(**{k: float(r.number(table, k, "tolerance")) for k in table})


def _launch(doc: dict[str, Any], r: _Reader) -> LaunchSpec | None:
    if "launch" not in doc:
        return None
    t = r.table(doc, "launch")
    r.keys(t, {"kernel", "grid", "block", "shared_bytes"}, "launch")
    return LaunchSpec(
        kernel=r.ident(t, "kernel", "launch"),
        grid=r.strings(t, "grid", "launch"),
        block=r.strings(t, "block", "launch"),
        shared_bytes=r.text(t, "shared_bytes", "0", "launch"),
    )


class _Reader:
    """Typed access to a parsed document; every failure names the file and the field."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def _fail(self, at: str, key: str, problem: str) -> TaskError:
        field = f"{at}.{key}" if at else key
        return TaskError(f"{self.origin}: {field}: {problem}")

    def keys(self, doc: Mapping[str, Any], allowed: set[str], at: str) -> None:
        for key in doc:
            if key not in allowed:
                raise self._fail(
                    at, key, f"unknown field (expected one of {', '.join(sorted(allowed))})"
                )

    def _get(self, doc: Mapping[str, Any], key: str, default: Any, at: str) -> Any:
        if key in doc:
            return doc[key]
        if default is None:
            raise self._fail(at, key, "is required")
        return default

    def text(
        self, doc: Mapping[str, Any], key: str, default: str | None = None, at: str = ""
    ) -> str:
        value = self._get(doc, key, default, at)
        if not isinstance(value, str):
            raise self._fail(at, key, f"must be a string, not {type(value).__name__}")
        return value

    def opt_str(self, doc: Mapping[str, Any], key: str, at: str) -> str | None:
        return self.text(doc, key, None, at) if key in doc else None

    def ident(self, doc: Mapping[str, Any], key: str, at: str) -> str:
        value = self.text(doc, key, None, at)
        if not value.isidentifier():
            raise self._fail(at, key, f"{value!r} is not a C identifier")
        return value

    def number(self, doc: Mapping[str, Any], key: str, at: str) -> int | float:
        value = doc[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._fail(at, key, f"must be a number, not {type(value).__name__}")
        return value

    def strings(self, doc: Mapping[str, Any], key: str, at: str) -> tuple[str, ...]:
        value = self._get(doc, key, None, at)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._fail(at, key, "must be an array of expression strings")
        return tuple(value)

    def table(self, doc: Mapping[str, Any], key: str) -> dict[str, Any]:
        value = self._get(doc, key, None, "")
        if not isinstance(value, dict):
            raise self._fail("", key, "must be a table")
        return value

    def tables(self, doc: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
        value = self._get(doc, key, None, "")
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self._fail("", key, f"must be an array of tables ([[{key}]])")
        return value

    def enum(
        self,
        doc: Mapping[str, Any],
        key: str,
        enum: type[_E],
        default: _E | None,
        at: str = "",
    ) -> _E:
        raw = self._get(doc, key, default.value if default is not None else None, at)
        try:
            return enum(raw)
        except ValueError:
            choices = ", ".join(e.value for e in enum)
            raise self._fail(at, key, f"{raw!r} is not one of {choices}") from None
