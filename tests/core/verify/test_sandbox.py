"""The isolated runner, with real processes: timeouts, caps, limits, privileges, network,
namespaces, and nothing left running afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from regrapht_core import lifetime
from regrapht_core.verify.lockdown import LOCKDOWN_CXX
from regrapht_core.verify.sandbox import (
    Limits,
    allow_traversal,
    network_isolation_available,
    prepare_private_dir,
    process_isolation_available,
    run_isolated,
)

ENV = {"PATH": "/usr/bin:/bin"}
needs_pid_namespace = pytest.mark.skipif(
    not process_isolation_available(), reason="no PID namespaces here"
)


def _running(token: str) -> list[int]:
    """Processes whose command line has ``token`` (PIDs differ inside a namespace)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _gone(token: str) -> bool:
    deadline = time.monotonic() + 5
    while _running(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _running(token)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    prepare_private_dir(folder)
    return folder


@pytest.mark.parametrize("own_pids", [False, True])
def test_timeout_kills_the_whole_process_group(run_dir: Path, own_pids: bool) -> None:
    script = "sleep 300.25 & while :; do :; done"
    limits = Limits(wall_s=1.0, isolate_processes=own_pids)
    outcome = run_isolated(["sh", "-c", script], run_dir, limits, ENV)
    assert outcome.timed_out
    assert not outcome.ok
    assert "timed out" in outcome.describe()
    assert _gone("300.25"), "the background child survived the kill"


@needs_pid_namespace
def test_nothing_outlives_the_run_even_outside_its_process_group(run_dir: Path) -> None:
    """Issue 14, class 5: a child that calls ``setsid`` leaves the group the runner kills;
    the PID namespace ends it with the program."""
    script = "setsid sleep 300.5 & sleep 0.1; echo started"
    outcome = run_isolated(["sh", "-c", script], run_dir, Limits(), ENV)
    assert outcome.ok and outcome.stdout.strip() == "started", outcome
    assert outcome.processes_isolated
    assert _gone("300.5"), "a process that left the group survived the run"


@needs_pid_namespace
def test_the_program_is_the_first_process_of_its_namespace(run_dir: Path) -> None:
    outcome = run_isolated(["sh", "-c", "echo $$; exit 3"], run_dir, Limits(), ENV)
    assert outcome.returncode == 3
    assert outcome.stdout.strip() == "1"


@needs_pid_namespace
def test_a_signal_death_is_reported_through_the_waiter(run_dir: Path) -> None:
    python = shutil.which("python3", path=ENV["PATH"])
    assert python is not None
    crash = [python, "-c", "import ctypes; ctypes.string_at(0)"]
    outcome = run_isolated(crash, run_dir, Limits(), ENV)
    assert outcome.processes_isolated
    assert outcome.returncode == -signal.SIGSEGV, outcome
    assert outcome.describe() == "killed by signal SIGSEGV"


def test_without_a_pid_namespace_the_program_keeps_its_pid(run_dir: Path) -> None:
    limits = Limits(isolate_processes=False)
    outcome = run_isolated(["sh", "-c", "echo $$"], run_dir, limits, ENV)
    assert outcome.ok and outcome.stdout.strip() != "1"
    assert not outcome.processes_isolated


def test_output_is_capped_and_drained(run_dir: Path) -> None:
    script = "head -c 5000000 /dev/zero | tr '\\0' x; echo done >&2"
    outcome = run_isolated(["sh", "-c", script], run_dir, Limits(output_bytes=1000), ENV)
    assert outcome.ok
    assert len(outcome.stdout) == 1000
    assert outcome.truncated
    assert outcome.stderr.strip() == "done"


def test_file_size_limit_stops_disk_filling(run_dir: Path) -> None:
    script = "head -c 10000000 /dev/zero > big"
    outcome = run_isolated(["sh", "-c", script], run_dir, Limits(file_bytes=1 << 20), ENV)
    assert not outcome.ok
    assert (run_dir / "big").stat().st_size <= 1 << 20


def test_cpu_time_limit_ends_a_spinning_process(run_dir: Path) -> None:
    outcome = run_isolated(
        ["sh", "-c", "while :; do :; done"], run_dir, Limits(wall_s=30.0, cpu_s=1), ENV
    )
    assert not outcome.timed_out
    assert outcome.returncode is not None and outcome.returncode < 0
    assert outcome.wall_s < 20


def test_environment_is_not_inherited(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGRAPHT_SECRET", "s3cret")
    outcome = run_isolated(["sh", "-c", "env"], run_dir, Limits(), ENV)
    assert "s3cret" not in outcome.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="privileges are only dropped when root")
def test_root_runs_as_nobody_in_its_private_dir(run_dir: Path) -> None:
    outcome = run_isolated(["sh", "-c", "id -u; touch mine"], run_dir, Limits(), ENV)
    assert outcome.ok, outcome.stderr
    assert outcome.stdout.strip() != "0"
    assert (run_dir / "mine").exists()


@pytest.mark.skipif(not network_isolation_available(), reason="no network namespaces here")
def test_network_namespace_has_only_loopback(run_dir: Path) -> None:
    outcome = run_isolated(["cat", "/proc/net/dev"], run_dir, Limits(), ENV)
    interfaces = {line.split(":")[0].strip() for line in outcome.stdout.splitlines()[2:]}
    assert outcome.network_isolated
    assert interfaces <= {"lo"}


SYSTEM_PYTHON = shutil.which("python3", path=ENV["PATH"])
TALKS_TO_ITSELF = """
import socket, sys
server = socket.socket()
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(1)
client = socket.create_connection(server.getsockname(), timeout=5)
peer, _ = server.accept()
client.sendall(b"ok")
print(peer.recv(2).decode())
"""


def _talk(run_dir: Path, limits: Limits, port: int = 0) -> subprocess.CompletedProcess[str]:
    assert SYSTEM_PYTHON is not None
    outcome = run_isolated([SYSTEM_PYTHON, "-c", TALKS_TO_ITSELF, str(port)], run_dir, limits, ENV)
    return subprocess.CompletedProcess([], outcome.returncode or 0, outcome.stdout, outcome.stderr)


@pytest.mark.skipif(not network_isolation_available(), reason="no network namespaces here")
@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="needs a python3 in /usr/bin or /bin")
def test_a_namespace_with_its_loopback_up_talks_to_itself_and_reaches_nothing_else(
    run_dir: Path,
) -> None:
    """compute-sanitizer talks to its target over 127.0.0.1: with ``loopback`` it can,
    isolated; without, the namespace's loopback is down; and the host's own listener on
    127.0.0.1 stays out of reach either way."""
    assert _talk(run_dir, Limits(loopback=True)).stdout.strip() == "ok"
    down = _talk(run_dir, Limits())
    assert down.returncode != 0 and "unreachable" in down.stderr.lower()
    with socket.socket() as host_side:
        host_side.bind(("127.0.0.1", 0))
        host_side.listen(1)
        port = host_side.getsockname()[1]
        reach = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)"
        assert SYSTEM_PYTHON is not None
        outcome = run_isolated([SYSTEM_PYTHON, "-c", reach], run_dir, Limits(loopback=True), ENV)
        assert outcome.returncode != 0 and "refused" in outcome.stderr.lower()


@pytest.mark.skipif(not network_isolation_available(), reason="no network namespaces here")
@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="needs a python3 in /usr/bin or /bin")
def test_a_user_who_is_not_root_gets_the_loopback_up_too(user_run_dir: Path) -> None:
    """Inside its own user namespace the child may configure its network namespace."""
    assert _talk(user_run_dir, Limits(loopback=True)).stdout.strip() == "ok"


@pytest.mark.skipif(not network_isolation_available(), reason="no network namespaces here")
@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="needs a python3 in /usr/bin or /bin")
def test_two_namespaces_can_take_the_same_port_at_once(tmp_path: Path) -> None:
    """Why sanitizers get a namespace each: with the host's loopback shared, concurrent
    ones on one machine (one per GPU) contend for the same ports."""
    folders = [tmp_path / name for name in ("a", "b")]
    for folder in folders:
        prepare_private_dir(folder)
    held = "import socket, time; s = socket.socket(); s.bind(('127.0.0.1', 49152)); "
    held += "s.listen(1); time.sleep(1); print('held')"
    assert SYSTEM_PYTHON is not None
    results: list[str] = []
    threads = [
        threading.Thread(
            target=lambda f=folder: results.append(
                run_isolated([SYSTEM_PYTHON, "-c", held], f, Limits(loopback=True), ENV).stdout
            )
        )
        for folder in folders
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.strip() for r in results] == ["held", "held"]


@pytest.fixture
def user_run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run directory of a user who is not root. As root this pretends not to be (root
    may create user namespaces too, mapped the same way), so nothing drops to ``nobody``
    and the directory stays with the user mapped into the namespace."""
    if os.geteuid() == 0:
        monkeypatch.setattr(os, "geteuid", lambda: 1000)
    folder = tmp_path / "user-run"
    prepare_private_dir(folder)
    return folder


@needs_pid_namespace
def test_a_user_who_is_not_root_gets_the_namespaces_in_a_user_namespace(
    user_run_dir: Path,
) -> None:
    """The run maps its user to itself, has only loopback and its own PIDs."""
    script = "cat /proc/self/uid_map; echo $$; cat /proc/net/dev"
    outcome = run_isolated(["sh", "-c", script], user_run_dir, Limits(), ENV)
    assert outcome.ok, outcome
    mapping, pid, *net = outcome.stdout.splitlines()
    uid = os.getuid()
    assert mapping.split() == [str(uid), str(uid), "1"]
    assert pid == "1"
    assert {line.split(":")[0].strip() for line in net[2:]} <= {"lo"}


def test_a_missing_program_is_an_outcome_not_an_exception(run_dir: Path) -> None:
    outcome = run_isolated(["./nonexistent-prog"], run_dir, Limits(), ENV)
    assert outcome.returncode is None
    assert outcome.describe() == "could not be started"


def test_allow_traversal_opens_ancestors_for_search_only() -> None:
    with tempfile.TemporaryDirectory(prefix="regrapht-test-") as tmp:
        outer = Path(tmp)
        root = outer / "stage" / "run"
        root.mkdir(parents=True)
        outer.chmod(0o700)
        root.chmod(0o700)
        allow_traversal(root)
        assert outer.stat().st_mode & 0o777 == 0o711
        assert (outer / "stage").stat().st_mode & 0o111 == 0o111
        assert root.stat().st_mode & 0o777 == 0o700


def test_a_child_dies_with_its_parent_and_is_known_while_it_lives(run_dir: Path) -> None:
    """Finding 10 of #15: every child carries the parent-death signal SIGKILL (a parent
    killed outright runs no cleanup), also after dropping to ``nobody``, and its process
    group is listed as live while the runner waits for it."""
    python = shutil.which("python3", path=ENV["PATH"])
    assert python is not None
    ask = (
        "import ctypes; libc = ctypes.CDLL(None); sig = ctypes.c_int(); "
        "libc.prctl(2, ctypes.byref(sig), 0, 0, 0); print(sig.value)"  # PR_GET_PDEATHSIG
    )
    seen: list[set[int]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            seen.append(set(lifetime._LEFT.groups))

    watcher = threading.Thread(target=watch)
    watcher.start()
    outcome = run_isolated(
        [python, "-c", f"import time; time.sleep(0.3); {ask}"], run_dir, Limits(), ENV
    )
    done.set()
    watcher.join()
    assert outcome.ok and outcome.stdout.strip() == str(int(signal.SIGKILL)), outcome
    assert any(seen) and not lifetime._LEFT.groups


_CUDA_PROGRAM = r"""
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int* data) { data[threadIdx.x] = threadIdx.x; }

int main() {
    if (!regrapht_lockdown()) { std::printf("no lockdown\n"); return 2; }
    int* device = nullptr;
    int host[64] = {};
    if (cudaMalloc(&device, sizeof host) != cudaSuccess) { std::printf("no malloc\n"); return 1; }
    fill<<<1, 64>>>(device);
    cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost);
    cudaError_t status = cudaDeviceSynchronize();
    std::printf("%s %d\n", cudaGetErrorString(status), host[63]);
    return status == cudaSuccess && host[63] == 63 ? 0 : 1;
}
"""


@pytest.mark.gpu
@pytest.mark.parametrize("folder", ["run_dir", "user_run_dir"])
def test_the_cuda_driver_works_in_the_namespaces_under_lockdown(
    folder: str, request: pytest.FixtureRequest
) -> None:
    """The device nodes are opened by path with the (mapped) user's own rights, and the
    driver starts under the candidate's system-call filter, in every namespace at once."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc")
    run_dir: Path = request.getfixturevalue(folder)
    source = run_dir / "program.cu"
    source.write_text(LOCKDOWN_CXX + _CUDA_PROGRAM)
    build = subprocess.run(
        [nvcc, "-O2", "-o", str(run_dir / "program"), str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    prepare_private_dir(run_dir)
    outcome = run_isolated(["./program"], run_dir, Limits(), ENV)
    assert outcome.ok and outcome.stdout.strip() == "no error 63", outcome
