"""The candidate's system-call filter, installed for real in child processes: what it refuses
(with which errno), what it must leave to the CUDA runtime, and both installers alike."""

from __future__ import annotations

import platform
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from regrapht_core.verify import lockdown
from regrapht_core.verify.lockdown import LOCKDOWN_CXX, SYSCALLS, filter_program

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.machine() != "x86_64",
    reason="the filter is for Linux on x86-64",
)

_UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")

# Each check prints its name when it fails; the program exits 0 only if all pass.
_CHECKS = r"""
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>
#include <linux/sched.h>
#include <sys/resource.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

static int failures = 0;

static void expect(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAILED %s (errno %d)\n", what, errno);
        ++failures;
    }
}

static bool refused(long result, int code = EPERM) { return result == -1 && errno == code; }

static void on_alarm(int) {}

static int checks() {
    expect(refused(fork()), "fork");
    expect(refused(syscall(SYS_vfork)), "vfork");
    expect(refused(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)), "clone of a process");
    struct clone_args args = {};
    args.exit_signal = SIGCHLD;
    expect(refused(syscall(SYS_clone3, &args, sizeof args), ENOSYS), "clone3");
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    expect(refused(execve("/bin/true", argv, nullptr)), "execve");
    expect(refused(socket(AF_INET, SOCK_STREAM, 0)), "socket of the network");
    expect(refused(socket(AF_NETLINK, SOCK_RAW, 0)), "socket of the kernel");
    int local = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    expect(local >= 0, "socket of this machine (the CUDA driver's)");
    close(local);
    expect(refused(kill(getppid(), 0)), "kill of the parent");
    expect(kill(getpid(), 0) == 0, "kill of itself");
    expect(refused(syscall(SYS_tgkill, getppid(), getppid(), 0)), "tgkill of the parent");
    struct itimerval every = {{0, 1000}, {0, 1000}};
    expect(refused(setitimer(ITIMER_REAL, &every, nullptr)), "setitimer");
    expect(refused(syscall(SYS_alarm, 1)), "alarm");
    timer_t timer;
    expect(refused(timer_create(CLOCK_MONOTONIC, nullptr, &timer)), "timer_create");
    expect(refused(timerfd_create(CLOCK_MONOTONIC, 0)), "timerfd_create");
    struct sigaction action = {};
    action.sa_handler = on_alarm;
    expect(refused(sigaction(SIGALRM, &action, nullptr)), "sigaction installing a handler");
    struct { void* handler; unsigned long flags; void* restorer; unsigned long mask; } raw = {};
    expect(syscall(SYS_rt_sigaction, 33, &raw, nullptr, 8) == 0, "sigaction, glibc's signal");
    struct sigaction old = {};
    expect(sigaction(SIGALRM, nullptr, &old) == 0, "sigaction reading the action");
    expect(refused(setpriority(PRIO_PROCESS, getppid(), 19)), "setpriority of the parent");
    expect(setpriority(PRIO_PROCESS, 0, 1) == 0, "setpriority of itself");
    int ran = 0;
    std::thread worker([&ran] { ran = 1; });
    worker.join();
    expect(ran == 1, "std::thread");
    void* block = std::malloc(64 << 20);
    expect(block != nullptr, "malloc");
    std::ofstream("written.txt") << "in the run directory\n";
    expect(std::ifstream("written.txt").good(), "file write in the working directory");
    return failures;
}

int main() {
    if (!regrapht_lockdown()) {
        std::printf("FAILED install\n");
        return 2;
    }
    return checks() == 0 ? 0 : 1;
}
"""

_PYTHON_CHECKS = r"""
import os, signal, socket, sys, threading
from regrapht_core.verify.lockdown import install_lockdown

def refused(action, error=PermissionError):
    try:
        action()
    except error:
        return True
    return False

assert install_lockdown(), "install"
checks = {
    "fork": refused(os.fork),
    "exec": refused(lambda: os.execv("/bin/true", ["true"])),
    "socket": refused(socket.socket),
    "kill of the parent": refused(lambda: os.kill(os.getppid(), 0)),
    "setitimer": refused(lambda: signal.setitimer(signal.ITIMER_REAL, 1.0), OSError),
    "signal handler": refused(lambda: signal.signal(signal.SIGALRM, lambda *_: None), OSError),
}
os.kill(os.getpid(), 0)
ran = []
worker = threading.Thread(target=lambda: ran.append(1))
worker.start()
worker.join()
checks["thread"] = ran == [1]
with open("written.txt", "w") as out:
    out.write("in the run directory\n")
failed = [name for name, ok in checks.items() if not ok]
print("FAILED", failed) if failed else print("ok")
sys.stdout.flush()
os._exit(1 if failed else 0)
"""


def _compiler() -> str:
    found = shutil.which("g++") or shutil.which("c++")
    if found is None:
        pytest.skip("no C++ compiler")
    return found


def _build(folder: Path, source: str, compiler: str, *flags: str) -> Path:
    program = folder / "checks.cpp"
    program.write_text(LOCKDOWN_CXX + source)
    binary = folder / "checks"
    build = subprocess.run(
        [compiler, *flags, str(program), "-o", str(binary)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    return binary


def test_the_syscall_table_matches_the_kernel_headers() -> None:
    if not _UNISTD.exists():
        pytest.skip("no kernel headers")
    numbers = dict(re.findall(r"#define __NR_(\w+) (\d+)", _UNISTD.read_text()))
    assert {name: int(numbers[name]) for name in SYSCALLS} == SYSCALLS


def test_the_program_checks_the_architecture_first_and_allows_by_default() -> None:
    program = filter_program()
    assert (program[0].code, program[0].k) == (0x20, 4)  # load seccomp_data.arch
    assert program[1].k == 0xC000003E  # AUDIT_ARCH_X86_64
    assert program[2].k == 0x80000000  # otherwise kill the process
    assert (program[-1].code, program[-1].k) == (0x06, 0x7FFF0000)
    assert len(program) < 4096
    assert all(0 <= i.jt <= 255 and 0 <= i.jf <= 255 for i in program)


def test_the_cxx_installer_refuses_processes_signals_timers_and_sockets(tmp_path: Path) -> None:
    binary = _build(tmp_path, _CHECKS, _compiler(), "-std=c++17", "-O1", "-pthread")
    run = subprocess.run(
        [str(binary)], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "written.txt").exists()


def test_another_syscall_abi_kills_the_process(tmp_path: Path) -> None:
    code = (
        "import ctypes\n"
        "from regrapht_core.verify.lockdown import install_lockdown\n"
        "assert install_lockdown()\n"
        "ctypes.CDLL(None).syscall(0x40000000 | 39)\n"  # x32 getpid
        "print('survived')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == -signal.SIGSYS, run.stdout + run.stderr
    assert "survived" not in run.stdout


def test_the_python_installer_refuses_the_same(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PYTHON_CHECKS],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
    assert (tmp_path / "written.txt").exists()


def test_the_module_imports_only_the_standard_library() -> None:
    """It is staged into the kernel runner's directory, where nothing else is importable."""
    imported = re.findall(r"^(?:from|import) (\w+)", Path(lockdown.__file__).read_text(), re.M)
    assert set(imported) <= set(sys.stdlib_module_names) | {"__future__"}


_CUDA_CHECKS = r"""
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__global__ void twice(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= 2.0f;
}

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::printf("FAILED %s: %s\n", #call, cudaGetErrorString(e)); return 1; } } while (0)

int main() {
    if (!regrapht_lockdown()) { std::printf("FAILED install\n"); return 2; }
    const int n = 1 << 20;
    float* host = new float[n];
    for (int i = 0; i < n; ++i) host[i] = float(i);
    float* device = nullptr;
    CHECK(cudaMalloc(&device, n * sizeof(float)));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(start));
    twice<<<(n + 255) / 256, 256>>>(device, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        if (host[i] != 2.0f * float(i)) { std::printf("FAILED data\n"); return 1; }
    }
    cudaError_t other = cudaSuccess;
    std::thread worker([&other] { other = cudaDeviceSynchronize(); });
    worker.join();
    CHECK(other);
    CHECK(cudaFree(device));
    std::printf("ok %.3f ms\n", ms);
    return 0;
}
"""


@pytest.mark.gpu
def test_the_cuda_runtime_works_under_the_filter(tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc")
    binary = _build(tmp_path, _CUDA_CHECKS, nvcc, "-O2", "-x", "cu")
    run = subprocess.run(
        [str(binary)], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120
    )
    assert run.returncode == 0 and run.stdout.startswith("ok"), run.stdout + run.stderr
