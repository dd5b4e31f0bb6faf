"""A server process told to stop mid-compile leaves no process and no copy of the code.

A real process runs a real :class:`Compiler` whose ``nvcc`` is a stand-in that forks
(as nvcc forks cicc and ptxas) and sleeps; the test stops that process and looks for
what is left: the compiler's processes by pid, the scratch directory by path.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from regrapht_core import lifetime

SERVER = """
import sys, threading
from pathlib import Path
from regrapht_core.verify.compile import Compiler
from regrapht_core.lifetime import scratch_root
from regrapht_server.jobs import Engine, stop_on_signals

stop_on_signals(Engine())
nvcc, pids, cache = sys.argv[1:4]
compiler = Compiler(
    Path(cache), "sm_90", nvcc=nvcc, environment={"PATH": "/usr/bin:/bin", "PIDS": pids}
)
print(scratch_root(), flush=True)
work = threading.Thread(target=compiler.cuda_object, args=("// the user's code\\n",))
work.start()
work.join()
"""

NVCC = """#!/bin/sh
[ "$1" = --version ] && exec echo "fake nvcc"
sleep 30 &
echo $! >> "$PIDS"
echo $$ >> "$PIDS"
wait
"""


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for a parent that does not reap (as in containers)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in {"Z", "X"}


def pids_in(path: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if path.exists() and len(lines := path.read_text().split()) >= count:
            return [int(line) for line in lines]
        time.sleep(0.02)
    pytest.fail(f"the compiler did not start: {path}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """The process, its scratch root, and the file where the compiler writes its pids."""
    nvcc = tmp_path / "nvcc"
    nvcc.write_text(NVCC)
    nvcc.chmod(0o755)
    pids = tmp_path / "pids"
    argv = [sys.executable, "-c", SERVER, str(nvcc), str(pids), str(tmp_path / "cache")]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    root = Path(process.stdout.readline().strip())
    yield process, root, pids
    if process.poll() is None:
        process.kill()
    process.wait()
    process.stdout.close()


def test_sigterm_mid_compile_kills_the_compiler_and_removes_the_code(
    server: tuple[subprocess.Popen[str], Path, Path],
) -> None:
    """Finding 10 of #15: SIGTERM mid-job left nvcc running ~3 s and a temp dir holding the
    user's code. The handler the entry point installs kills the compiler's whole process
    group and removes the scratch root, then the process ends by the signal."""
    process, root, pids = server
    compiler = pids_in(pids, 2)
    (unit,) = root.glob("cc-*/unit.cu")
    assert unit.read_text() == "// the user's code\n"
    stopped = time.monotonic()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=2) == -signal.SIGTERM
    while any(alive(pid) for pid in compiler) and time.monotonic() - stopped < 2:
        time.sleep(0.02)
    assert not [pid for pid in compiler if alive(pid)]
    assert not root.exists()


def test_sigkill_of_the_parent_kills_its_child(
    server: tuple[subprocess.Popen[str], Path, Path],
) -> None:
    """Finding 10 of #15: a parent killed outright runs no handler; the kernel kills the
    child it was waiting for (the parent-death signal the sandbox sets), and the next
    process to make a scratch root removes the one left behind."""
    process, root, pids = server
    _, child = pids_in(pids, 2)
    killed = time.monotonic()
    process.kill()
    process.wait(timeout=2)
    while alive(child) and time.monotonic() - killed < 2:
        time.sleep(0.02)
    assert not alive(child)
    assert root.exists()
    lifetime.sweep_stale()
    assert not root.exists()
