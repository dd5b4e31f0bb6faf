from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.errors import TaskError
from regrapht_core.tasks.taskfile import dump_task, load_task, loads_task, save_task

from .conftest import extract


@pytest.mark.parametrize(
    ("file", "function"),
    [
        ("saxpy.c", "saxpy"),
        ("spmv_csr.c", "spmv_csr"),
        ("pagerank.c", "pagerank_step"),
        ("kernels.cu", "transpose_kernel"),
        ("vectors.cpp", "scale_shift"),
        ("reduction.c", "sum_squares"),
    ],
)
def test_round_trip(file: str, function: str) -> None:
    task = extract(file, function)
    text = dump_task(task)
    tomllib.loads(text)
    assert loads_task(text, origin="mem.toml") == task


def test_awkward_source_text_survives() -> None:
    task = extract("saxpy.c", "saxpy")
    nasty = replace(task, source=task.source + "\n// '''quotes''' \\ back\\slash \"dq\"\t\x01\n")
    assert loads_task(dump_task(nasty)) == nasty


def test_source_file_is_relative_to_the_task_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = extract("matvec.cpp", "matvec")
    save_task(task, tmp_path / "matvec.toml", source_file="matvec_ref.cpp")
    assert (tmp_path / "matvec_ref.cpp").read_text() == task.source
    assert 'source_file = "matvec_ref.cpp"' in (tmp_path / "matvec.toml").read_text()
    monkeypatch.chdir("/")
    assert load_task(tmp_path / "matvec.toml") == task


def _broken(task: Task, old: str, new: str) -> str:
    text = dump_task(task)
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('role = "inout"', 'rol = "inout"', r"bad\.toml: args\[3\]\.rol: unknown field"),
        ('role = "inout"', 'role = "output"', r"args\[3\]\.role: 'output' is not one of in, out"),
        ('length = "n"\n', "", r"args\[2\] \(x\)\.length: a pointer needs a length"),
        ('length = "n"', 'length = "__import__(1)"', r"args\[2\] \(x\)\.length: '__import__"),
        ('length = "n"', 'length = "k"', r"uses 'k', which has no value"),
        ('ctype = "float"', 'ctype = "Particle"', r"args\[1\] \(a\)\.ctype: element type"),
        ('mode = "seq2cuda"', 'mode = "fast"', r"bad\.toml: mode: 'fast' is not one of"),
        ("version = 1", "version = 9", r"version: 9 is not a task format"),
        ("[timing_size]\nn = 1048576", "[timing_size]\nn = 5", r"must include the timing size"),
        ("atol = 1e-05", 'atol = "tight"', r"tolerance\.atol: must be a number"),
        ('entry = "saxpy"', 'entry = "saxpy"\nsource_file = "x.c"', r"exactly one of 'source'"),
        ('name = "saxpy"', 'name = "saxpy', r"bad\.toml: not valid TOML"),
    ],
)
def test_strict_validation_names_file_and_field(
    saxpy: Task, old: str, new: str, message: str
) -> None:
    with pytest.raises(TaskError, match=message):
        loads_task(_broken(saxpy, old, new), origin="bad.toml")


def test_structured_companion_must_be_declared(tmp_path: Path) -> None:
    task = extract("spmv_csr.c", "spmv_csr")
    text = _broken(task, 'kind = "part", ', "")
    with pytest.raises(TaskError, match=r"'col_idx' must be an input with dist"):
        loads_task(text, origin="spmv.toml")


def test_missing_file_is_a_task_error(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match=r"nope\.toml: cannot read the task file"):
        load_task(tmp_path / "nope.toml")
