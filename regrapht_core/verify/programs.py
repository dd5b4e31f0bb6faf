"""What runs a candidate: a native harness binary, or the Python kernel runner and its modules.

The pipeline treats both alike: a :class:`Program` names the files to copy into a fresh
private run directory and the command to start there. Nothing outside that directory needs
to be readable by the (unprivileged) child: the kernel runner is staged as a three-module
copy of the package (the runner, :mod:`protocol`, :mod:`lockdown`) next to the cubins,
and the interpreter finds numpy and pycuda through an explicit ``PYTHONPATH`` of just
their install directories.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from regrapht_core.verify import kernel_runner, lockdown, protocol

__all__ = ["Program", "gpu_python_missing", "kernel_program", "native_program", "python_probe"]

_RUNNER_PACKAGE = "lib"


@dataclass(frozen=True, slots=True)
class Program:
    argv: tuple[str, ...]
    """Started inside the run directory, with the directory (``.``) appended."""
    files: tuple[tuple[str, Path | None], ...]
    """``(name in the run directory, source file)`` pairs copied before each run; ``None``
    stages an empty file."""
    env: tuple[tuple[str, str], ...] = ()
    """Added to the run environment (which is otherwise built from scratch)."""
    interpreted: bool = False
    """Started by an interpreter that opens its modules by absolute path, so the run
    directory's ancestors must be traversable by the (unprivileged) child."""

    def stage(self, root: Path) -> None:
        for name, source in self.files:
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if source is None:
                target.touch()
            else:
                shutil.copy2(source, target)

    @property
    def environment(self) -> Mapping[str, str]:
        return dict(self.env)


def native_program(binary: Path) -> Program:
    """A linked harness binary, run as ``./<name> .``."""
    return Program((f"./{binary.name}",), ((binary.name, binary),))


def _install_dir(module: str) -> str | None:
    """The directory to put on ``sys.path`` so ``module`` imports, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    origin = Path(spec.origin)
    return str(origin.parent.parent if spec.submodule_search_locations else origin.parent)


@cache
def gpu_python_missing() -> str | None:
    """Why the kernel runner cannot start here (pycuda is the optional ``gpu`` extra)."""
    if _install_dir("pycuda") is None:
        return "pycuda is not installed (pip install 'regrapht[gpu]')"
    return None


def _runner_files() -> tuple[tuple[str, Path | None], ...]:
    package = f"{_RUNNER_PACKAGE}/regrapht_core"
    return (
        (f"{package}/__init__.py", None),
        (f"{package}/verify/__init__.py", None),
        (f"{package}/verify/protocol.py", Path(protocol.__file__)),
        (f"{package}/verify/lockdown.py", Path(lockdown.__file__)),
        (f"{package}/verify/kernel_runner.py", Path(kernel_runner.__file__)),
    )


def _python(arguments: tuple[str, ...], files: tuple[tuple[str, Path | None], ...]) -> Program:
    """This interpreter (no user site, no bytecode files) with only the runner package,
    numpy and pycuda importable."""
    paths = [_RUNNER_PACKAGE]
    paths += [d for d in (_install_dir("numpy"), _install_dir("pycuda")) if d is not None]
    argv = (sys.executable, "-s", "-B", *arguments)
    environment = (("PYTHONPATH", ":".join(dict.fromkeys(paths))),)
    return Program(argv, files, environment, interpreted=True)


def kernel_program(modules: Mapping[str, Path], command: tuple[str, ...]) -> Program:
    """The kernel runner with ``command`` (``check``/``timing`` and its arguments), the
    compiled ``modules`` copied in under the names the command uses."""
    files = _runner_files() + tuple(modules.items())
    return _python(("-m", kernel_runner.__name__, *command), files)


def python_probe() -> Program:
    """Imports what the kernel runner imports, nothing more: does the interpreter start?"""
    return _python(("-c", "import numpy, pycuda.driver"), ())
