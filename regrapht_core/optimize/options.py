"""The command-line options of a job, written once for ``regrapht optimize`` and ``bench``.

``job_options`` adds the options to a click command and hands the command one
:class:`JobSettings` (argument ``job``) built by ``JobSettings.from_options``, the same
constructor the language server uses, so a setting means the same everywhere.
``require_nvcc`` is the check both commands make before spending any of the budget.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from regrapht_core.errors import ConfigError
from regrapht_core.optimize.session import JobSettings

__all__ = ["job_options", "require_nvcc"]

_Command = Callable[..., None]


def _options(budget: int) -> list[Callable[[_Command], _Command]]:
    defaults = JobSettings.from_options()
    return [
        click.option(
            "--budget", type=click.IntRange(min=1), default=budget, show_default=True,
            help="Candidates to evaluate.",
        ),
        click.option(
            "--depth-cap", type=click.IntRange(min=1), default=defaults.search.depth_cap,
            show_default=True, help="Techniques on one search path at most.",
        ),
        click.option(
            "--time-limit", "time_limit_s", type=click.FloatRange(min=0, min_open=True),
            help="Seconds; the job ends within seconds of it (model steps and verifier "
            "timeouts are cut) and keeps the best so far.",
        ),
        click.option(
            "--model", help="GGUF path, embedded model name or local server URL.",
        ),
        click.option("--server-model", default="", help="Model name on the server (or first)."),
        click.option("--allow-remote", is_flag=True, help="Accept a model server off loopback."),
        click.option(
            "--gpu-layers", type=int, default=None,
            help="Model layers on the GPU (-1 as many as fit, 0 none; default: as many as fit "
            "when the installed llama.cpp build sees a GPU). Answers take turns with timing.",
        ),
        click.option("--no-model", is_flag=True, help="Use no language model: rewriters only."),
        click.option(
            "--rewriters/--no-rewriters", default=True, show_default=True,
            help="Let deterministic rewriters apply the techniques they can (off: model only).",
        ),
        click.option(
            "--nvcc", type=click.Path(path_type=Path, exists=True),
            help="The nvcc to compile with, or its folder (default: nvcc on PATH).",
        ),
        click.option(
            "--gpu", "gpu_index", type=click.IntRange(min=0),
            help="Index of the GPU that runs candidates (default: the first visible).",
        ),
        click.option(
            "--snapshot", type=click.Path(path_type=Path, dir_okay=False),
            help="ReGraph snapshot file (default: $REGRAPHT_SNAPSHOT, else your learned copy "
            "in the user data directory if any, else the shipped snapshot).",
        ),
        click.option("--seed", type=int, default=0, show_default=True),
    ]  # fmt: skip


_NAMES = (
    "budget", "depth_cap", "time_limit_s", "model", "server_model", "allow_remote",
    "gpu_layers", "rewriters", "nvcc", "gpu_index", "snapshot", "seed",
)  # fmt: skip


def job_options(*, budget: int) -> Callable[[_Command], _Command]:
    """Decorate a click command function taking ``job: JobSettings`` (and its own options)."""

    def decorate(command: _Command) -> _Command:
        @functools.wraps(command)
        def run(**options: Any) -> None:
            values = {name: options.pop(name) for name in _NAMES}
            use_model = not options.pop("no_model")
            command(job=JobSettings.from_options(**values, use_model=use_model), **options)

        decorated: _Command = run
        for option in reversed(_options(budget)):
            decorated = option(decorated)
        return decorated

    return decorate


def require_nvcc(job: JobSettings, env: Mapping[str, str] = os.environ) -> Path:
    """The nvcc the verifier will run, found as it will find it; a :class:`ConfigError`
    naming the fix when there is none, before a model loads or a candidate is proposed
    (without a compiler every candidate would fail and the whole budget be spent)."""
    config = job.verify
    found = config.find_nvcc(env)
    if found is None:
        where = "on PATH" if config.nvcc_path is None else f"at {config.nvcc}"
        raise ConfigError(
            f"no usable nvcc {where}: install the CUDA toolkit "
            "(https://developer.nvidia.com/cuda-downloads) or pass --nvcc PATH "
            "(the compiler or its folder)"
        )
    return found
