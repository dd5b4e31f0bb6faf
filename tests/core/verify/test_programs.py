"""Programs staged into a private run directory: the native harness and the kernel runner."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from regrapht_core.verify.programs import gpu_python_missing, kernel_program, native_program
from regrapht_core.verify.protocol import EXIT_CUDA_ERROR
from regrapht_core.verify.sandbox import Limits, prepare_private_dir, run_isolated

NO_PYCUDA = importlib.util.find_spec("pycuda") is None


def test_a_native_program_is_its_binary(tmp_path: Path) -> None:
    binary = tmp_path / "check"
    binary.write_bytes(b"\x7fELF")
    program = native_program(binary)
    root = tmp_path / "run"
    program.stage(root)
    assert program.argv == ("./check",)
    assert (root / "check").read_bytes() == b"\x7fELF"
    assert dict(program.environment) == {}


def test_the_kernel_runner_is_staged_as_a_package_of_its_own(tmp_path: Path) -> None:
    module = tmp_path / "built.cubin"
    module.write_bytes(b"cubin")
    program = kernel_program({"candidate.cubin": module}, ("check", "candidate.cubin", "_Z1kv"))
    root = tmp_path / "run"
    program.stage(root)
    staged = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert staged == {
        "candidate.cubin",
        "lib/regrapht_core/__init__.py",
        "lib/regrapht_core/verify/__init__.py",
        "lib/regrapht_core/verify/protocol.py",
        "lib/regrapht_core/verify/kernel_runner.py",
        "lib/regrapht_core/verify/lockdown.py",
    }
    assert (root / "lib/regrapht_core/__init__.py").read_text() == ""
    runner = "regrapht_core.verify.kernel_runner"
    assert program.argv[-4:] == (runner, "check", "candidate.cubin", "_Z1kv")
    assert program.environment["PYTHONPATH"].startswith("lib:")


@pytest.mark.skipif(not NO_PYCUDA, reason="pycuda is installed here")
def test_without_pycuda_the_staged_runner_starts_and_says_so(tmp_path: Path) -> None:
    module = tmp_path / "built.cubin"
    module.write_bytes(b"cubin")
    program = kernel_program({"candidate.cubin": module}, ("check", "candidate.cubin", "k"))
    root = tmp_path / "run"
    program.stage(root)
    (root / "kernel.json").write_text('{"args": [], "cases": []}')
    (root / "cases.txt").write_text("0 1\n")
    prepare_private_dir(root)
    env = {"PATH": "/usr/bin:/bin", **program.environment}
    limits = Limits(isolate_network=False, drop_privileges=False)
    outcome = run_isolated([*program.argv, "."], root, limits, env)
    assert outcome.returncode == EXIT_CUDA_ERROR, outcome.stderr
    assert "pycuda is not importable" in outcome.stderr
    assert gpu_python_missing() is not None
