"""A wheel built from the repository works installed elsewhere (#15, third Done-when).

Install finding of #15: at c509905 a wheel installed outside the checkout could not find
the snapshot (it was looked up next to the source tree), ``--learn`` would have rewritten a
file in site-packages, and ``regrapht --version`` did not exist.

The wheel goes into a fresh virtual environment in a temporary folder with ``--no-deps``.
Its dependencies come from the development environment through one ``.pth`` line naming
that environment's site-packages: a plain path line adds the folder to ``sys.path`` but
runs none of the ``.pth`` files inside it, so the development install's editable finder
for ``regrapht`` stays inactive and every ``regrapht_core``/``regrapht_server`` import is
served by the wheel's own files. That proves the wheel complete without rebuilding its
dependencies (the embedded model alone is 477 MB of packages).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.lsp_stdio import lsp_initialize

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "smooth.cpp"
SNAPSHOT = ROOT / "graph_snapshots" / "regraph.msgpack"

pytestmark = pytest.mark.slow


def _run(command: list[str], *, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, env=env, cwd=cwd, timeout=240
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


def _source_copy(target: Path) -> Path:
    """The checkout's files as git sees them (links kept), so the build neither writes
    ``build/`` into the checkout nor picks up what an earlier build left there."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, check=True, cwd=ROOT, timeout=60,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_symlink() or source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name, follow_symlinks=False)
    return target


def test_the_wheel_installed_elsewhere_optimizes_and_serves(tmp_path: Path) -> None:
    assert ROOT not in tmp_path.parents
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "REGRAPHT_"))}
    base.pop("XDG_DATA_HOME", None)
    here = dict(base, PYTHONPATH="")

    tree, dist = _source_copy(tmp_path / "src"), tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(tree)],
         env=here, cwd=tmp_path)  # fmt: skip
    (wheel,) = dist.glob("regrapht-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env=here, cwd=tmp_path)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
          str(wheel)], env=here, cwd=tmp_path)  # fmt: skip
    site = Path(
        _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
             env=here, cwd=tmp_path).stdout.strip()
    )  # fmt: skip
    (site / "_regrapht_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = dict(base, HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{base.get('PATH', '')}")
    regrapht = str(venv / "bin" / "regrapht")

    where = _run(
        [str(python), "-c", "import regrapht_core, regrapht_server; "
         "print(regrapht_core.__file__); print(regrapht_server.__file__)"],
        env=env, cwd=work,
    ).stdout.split()  # fmt: skip
    assert all(Path(p).is_relative_to(site) for p in where), where
    packaged = site / "regrapht_core" / "data" / "regraph.msgpack"
    assert not packaged.is_symlink() and packaged.read_bytes() == SNAPSHOT.read_bytes()
    licenses = list(site.glob("regrapht-*.dist-info/licenses/LICENSE"))
    assert licenses and "Apache License" in licenses[0].read_text()

    assert "version 0.1.0" in _run([regrapht, "--version"], env=env, cwd=work).stdout

    stats = json.loads(_run([regrapht, "graph", "stats", "--json"], env=env, cwd=work).stdout)
    assert Path(stats["snapshot"]) == packaged.resolve() and stats["examples"] > 0

    source = Path(shutil.copy(EXAMPLE, work / "smooth.cpp"))
    optimized = _run(
        [regrapht, "optimize", str(source), "--function", "smooth", "--no-model",
         "--budget", "2", "--time-limit", "60", "--json", "--learn"],
        env=env, cwd=work,
    )  # fmt: skip
    outcome = json.loads(optimized.stdout)
    assert Path(outcome["snapshot"]) == packaged.resolve()
    assert outcome["status"] in ("compiled_only", "faster"), outcome
    output = Path(outcome["output"])
    assert output == work / "smooth.regrapht.cu" and "__global__" in output.read_text()
    learned = home / ".local" / "share" / "regrapht" / "regraph.msgpack"
    assert learned.is_file(), optimized.stderr
    assert packaged.read_bytes() == SNAPSHOT.read_bytes()
    after = json.loads(_run([regrapht, "graph", "stats", "--json"], env=env, cwd=work).stdout)
    assert after["snapshot"] == str(learned)

    for server in ([str(python), "-m", "regrapht_server"], [regrapht, "lsp"]):
        answer = lsp_initialize(server, env=env, cwd=work)
        assert answer["result"]["serverInfo"]["name"] == "regrapht", answer
