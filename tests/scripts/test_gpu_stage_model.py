"""scripts/gpu-stage-model.sh, which every GPU lease sources once per carried part: each file
(the CUDA wheel, the model) is joined once all its parts have arrived, used only if its
SHA-256 matches, the wheel installed and the model put where the loader looks. A stand-in
``python3`` records the install; the parts are small files split as pack-device-model.sh
splits the real ones."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_PYTHON = '#!/bin/sh\necho "$@" >>"$INSTALLS"\n'


def _pack(dev: Path, name: str, data: bytes, first: int, size: int) -> int:
    """``data`` as ``name``'s parts in .dev/first, .dev/first+1, ...; the next folder's number."""
    parts = [data[k : k + size] for k in range(0, len(data), size)]
    for k, part in enumerate(parts):
        folder = dev / str(first + k)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.part.{k:02d}").write_bytes(part)
    sha = hashlib.sha256(data).hexdigest()
    (dev / str(first) / f"{name}.parts").write_text(f"{sha} {len(parts)}\n")
    return first + len(parts)


def _call(tree: Path, carried: Path, env: dict[str, str]) -> str:
    """One device call: the tree with just ``carried`` under .dev, the script sourced."""
    shutil.rmtree(tree / ".dev", ignore_errors=True)
    shutil.copytree(carried, tree / ".dev" / carried.name)
    done = subprocess.run(
        ["bash", "-c", "source scripts/gpu-stage-model.sh; echo PYTHONPATH=$PYTHONPATH"],
        cwd=tree, env=env, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return done.stdout


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The device's copy of the tree (the script alone) and the environment it runs in: its
    folders under ``tmp_path``, and a stand-in ``python3`` that records what it installs."""
    tree, bin_ = tmp_path / "tree", tmp_path / "bin"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "gpu-stage-model.sh", tree / "scripts")
    bin_.mkdir()
    (bin_ / "python3").write_text(_PYTHON)
    (bin_ / "python3").chmod(0o755)
    folders = {"STAGE": "stage", "STAGE_CACHE": "cache", "SITE": "site"}
    env = {f"REGRAPHT_{key}": str(tmp_path / name) for key, name in folders.items()}
    path = f"{bin_}{os.pathsep}{os.environ['PATH']}"
    return tree, {**os.environ, **env, "PATH": path, "INSTALLS": str(tmp_path / "installs")}


def test_each_file_is_joined_checked_and_put_in_place_once_its_parts_are_in(
    tmp_path: Path, machine: tuple[Path, dict[str, str]]
) -> None:
    tree, env = machine
    packed = tmp_path / "packed"
    wheel, model = b"wheel bytes " * 50, b"gguf bytes " * 70
    after = _pack(packed, "x-1.0-py3-none-any.whl", wheel, 1, 300)
    _pack(packed, "m.gguf", model, after, 1 << 20)
    said = [_call(tree, packed / str(k), env) for k in (1, 2, 3)]
    assert "x-1.0-py3-none-any.whl: 1 of 2 parts" in said[0]
    assert "x-1.0-py3-none-any.whl ready" in said[1]
    assert f"PYTHONPATH={tmp_path / 'site'}:" in said[1]  # the installing call sees it
    joined = tmp_path / "stage" / "joined" / "x-1.0-py3-none-any.whl"
    assert joined.read_bytes() == wheel
    installs = (tmp_path / "installs").read_text().splitlines()
    assert len(installs) == 1 and installs[0].endswith(f"--target {tmp_path / 'site'} {joined}")
    assert "m.gguf ready" in said[2] and "x-1.0-py3-none-any.whl ready" in said[2]
    assert (tmp_path / "cache" / "regrapht" / "models" / "m.gguf").read_bytes() == model


def test_a_file_whose_parts_do_not_match_its_sha256_is_not_used(
    tmp_path: Path, machine: tuple[Path, dict[str, str]]
) -> None:
    tree, env = machine
    packed = tmp_path / "packed"
    _pack(packed, "m.gguf", b"the model", 1, 1 << 20)
    (packed / "1" / "m.gguf.part.00").write_bytes(b"the modem")  # damaged on the way
    said = _call(tree, packed / "1", env)
    assert "m.gguf: 1 of 1 parts" in said
    assert not (tmp_path / "cache" / "regrapht" / "models" / "m.gguf").exists()
