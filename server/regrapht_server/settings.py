"""The ``regrapht`` settings section: typed, defaulted, and never fatal.

Settings arrive as untyped JSON from ``initializationOptions``, ``workspace/configuration``
and ``workspace/didChangeConfiguration``. A value the server cannot use must not stop the
server or the user's work: it falls back to its default, and the problem is reported once,
naming the setting, so the user can fix it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from regrapht_core import api

if TYPE_CHECKING:
    from regrapht_core.api import JobSettings

__all__ = ["SECTION", "Settings", "camel_case", "job_settings", "parse_settings"]

SECTION = "regrapht"

_SEARCH = api.SearchConfig()
_VERIFY = api.VerifyConfig()


@dataclass(frozen=True, slots=True)
class Settings:
    """Field names are the camelCase setting names in snake_case (``depthCap`` → ``depth_cap``)."""

    model: str = ""
    model_server_model: str = ""
    allow_remote: bool = False
    budget: int = _SEARCH.budget
    time_limit_seconds: float | None = _SEARCH.time_limit_s
    depth_cap: int = _SEARCH.depth_cap
    gpu_index: int | None = None
    nvcc_path: str = ""
    compile_timeout_seconds: float = _VERIFY.compile_timeout_s
    run_timeout_seconds: float = _VERIFY.run_timeout_s
    snapshot_path: str = ""
    allow_unverified: bool = False
    rewriters: bool = True
    use_model: bool = True
    learn: bool = False


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value.strip()


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _whole(minimum: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        # JSON has one number type: 200.0 is 200, but true is not 1.
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"expected a whole number >= {minimum}, got {value!r}")
        return value

    return check


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"expected a positive number of seconds, got {value!r}")
    return float(value)


def _nvcc(value: object) -> str:
    """The nvcc executable or the folder holding it; checked now, while the user looks."""
    text = _text(value)
    if not text:
        return text
    path = Path(text).expanduser()
    folder = path if path.is_dir() else path.parent
    if path.is_file() and path.name != "nvcc":
        raise ValueError(f"{text} is not named 'nvcc' (give the file or its folder)")
    if not (folder / "nvcc").is_file():
        raise ValueError(f"no nvcc at {text}")
    return str(folder)


_CHECKS: dict[str, Callable[[object], object]] = {
    "model": _text,
    "model_server_model": _text,
    "allow_remote": _flag,
    "budget": _whole(1),
    "time_limit_seconds": _seconds,
    "depth_cap": _whole(1),
    "gpu_index": _whole(0),
    "nvcc_path": _nvcc,
    "compile_timeout_seconds": _seconds,
    "run_timeout_seconds": _seconds,
    "snapshot_path": _text,
    "allow_unverified": _flag,
    "rewriters": _flag,
    "use_model": _flag,
    "learn": _flag,
}


def camel_case(name: str) -> str:
    """``depth_cap`` -> ``depthCap``: setting names and JSON payload keys alike."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def parse_settings(raw: object) -> tuple[Settings, list[str]]:
    """The settings, and one message per value that was replaced by its default.

    ``null`` means "not set" (VS Code sends it for settings without a value); keys the
    server does not know are left alone, so a newer extension cannot break an older server.
    """
    if raw is None:
        return Settings(), []
    if not isinstance(raw, Mapping):
        return Settings(), [f"{SECTION}: expected an object of settings, got {raw!r}"]
    values: dict[str, Any] = {}
    problems: list[str] = []
    for spec in fields(Settings):
        key = camel_case(spec.name)
        value = raw.get(key)
        if value is None:
            continue
        try:
            values[spec.name] = _CHECKS[spec.name](value)
        except ValueError as err:
            problems.append(f"{SECTION}.{key}: {err}; using the default ({spec.default!r})")
    return replace(Settings(), **values), problems


def job_settings(settings: Settings) -> JobSettings:
    """What the next job uses; rewriters stay on without a model, so a job can always run."""
    return api.JobSettings.from_options(  # heavy: loads with the first job
        budget=settings.budget,
        depth_cap=settings.depth_cap,
        time_limit_s=settings.time_limit_seconds,
        model=settings.model,
        server_model=settings.model_server_model,
        allow_remote=settings.allow_remote,
        use_model=settings.use_model,
        nvcc=Path(settings.nvcc_path) if settings.nvcc_path else None,
        gpu_index=settings.gpu_index,
        compile_timeout_s=settings.compile_timeout_seconds,
        run_timeout_s=settings.run_timeout_seconds,
        snapshot=Path(settings.snapshot_path).expanduser() if settings.snapshot_path else None,
        rewriters=settings.rewriters or not settings.use_model,
    )
