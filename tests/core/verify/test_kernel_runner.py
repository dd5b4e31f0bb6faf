"""The kernel runner's protocol on a fake device: the files it reads and writes, poisoning,
guard bytes, input hashes, device errors and the timing samples, all without a GPU."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.verify.cases import build_case, read_hashes, read_outputs, write_cases
from regrapht_core.verify.kernel_runner import Bytes, DeviceError, Launch, run
from regrapht_core.verify.launch import write_plan
from regrapht_core.verify.protocol import EXIT_CUDA_ERROR, EXIT_IO, EXIT_OUT_OF_BOUNDS
from regrapht_core.verify.timing import parse_kernel_samples
from tests.data.candidates.tasks import SAXPY_KERNEL

Body = Callable[["FakeDevice", Launch, tuple[Any, ...]], None]
_BASE = 0x10000


class FakeDevice:
    """Device memory in one host buffer; kernels are Python functions of the parameters."""

    def __init__(self, kernels: dict[str, Body]) -> None:
        self.heap = np.zeros(8 << 20, dtype=np.uint8)
        self.top = 0
        self.kernels = kernels
        self.launched: list[tuple[str, Launch]] = []
        self.freed = 0

    def array(self, address: int, count: int, dtype: str) -> npt.NDArray[Any]:
        start = address - _BASE
        return self.heap[start : start + count * np.dtype(dtype).itemsize].view(dtype)

    def alloc(self, nbytes: int) -> int:
        address = _BASE + self.top
        self.top += (nbytes + 255) // 256 * 256
        return address

    def free(self, address: int) -> None:
        self.freed += 1

    def upload(self, address: int, data: npt.NDArray[Any]) -> None:
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        self.array(address, raw.size, "u1")[:] = raw

    def download(self, address: int, nbytes: int) -> Bytes:
        return self.array(address, nbytes, "u1").copy()

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        self.array(address, nbytes, "u1")[:] = byte

    def kernel(self, module: Path, symbol: str) -> object:
        assert module.exists()
        return symbol

    def launch(self, kernel: object, launch: Launch, params: bytes) -> tuple[float, float]:
        assert isinstance(kernel, str)
        self.launched.append((kernel, launch))
        self.kernels[kernel](self, launch, struct.unpack("@ifPP", params))
        return 0.5, 0.4


def _saxpy(device: FakeDevice, launch: Launch, params: tuple[Any, ...]) -> None:
    n, a, x, y = params
    ys = device.array(y, n, "f4")
    ys[:] = np.float32(a) * device.array(x, n, "f4") + ys


def _spill(device: FakeDevice, launch: Launch, params: tuple[Any, ...]) -> None:
    _saxpy(device, launch, params)
    n, _, _, y = params
    device.array(y, n + 1, "f4")[n] = 0.0


def _scribble(device: FakeDevice, launch: Launch, params: tuple[Any, ...]) -> None:
    _saxpy(device, launch, params)
    n, _, x, _ = params
    device.array(x, n, "f4")[:] = 0.0


def _broken(device: FakeDevice, launch: Launch, params: tuple[Any, ...]) -> None:
    raise DeviceError("an illegal memory access was encountered")


SIZES = SAXPY_KERNEL.correctness_sizes[:4]


def _setup(root: Path, reps: int, seed: int = 5) -> list[Any]:
    cases = [build_case(SAXPY_KERNEL, size, seed, generate_inputs) for size in SIZES]
    write_cases(root, cases, reps=reps)
    write_plan(root, SAXPY_KERNEL, cases)
    (root / "m.cubin").write_bytes(b"")
    return cases


def _check(root: Path, body: Body) -> tuple[int, FakeDevice]:
    device = FakeDevice({"k": body})
    return run(["check", "m.cubin", "k", str(root)], lambda: device), device


def test_check_writes_outputs_and_input_hashes(tmp_path: Path) -> None:
    cases = _setup(tmp_path, reps=2)
    code, device = _check(tmp_path, _saxpy)
    assert code == 0
    assert [launch.grid for _, launch in device.launched] == [(1, 1, 1)] * 6 + [(2, 1, 1)] * 2
    assert all(launch.block == (256, 1, 1) for _, launch in device.launched)
    for k, case in enumerate(cases):
        folder = tmp_path / f"case{k}"
        _, a, x, y = case.arrays
        for tag in ("0", "1"):
            got = read_outputs(SAXPY_KERNEL, folder, tag)
            assert got is not None
            np.testing.assert_array_equal(got["y"], (a[0] * x + y).astype(np.float32))
            assert read_hashes(folder, tag) == case.input_hashes(SAXPY_KERNEL)
    assert device.freed == 2 * len(cases)


def test_outputs_are_poisoned_before_each_launch(tmp_path: Path) -> None:
    from tests.data.candidates.tasks import STENCIL_KERNEL

    cases = [build_case(STENCIL_KERNEL, {"n": 7}, 1, generate_inputs)]
    write_cases(tmp_path, cases, reps=1)
    write_plan(tmp_path, STENCIL_KERNEL, cases)
    (tmp_path / "m.cubin").write_bytes(b"")
    device = FakeDevice({})
    device.kernels["k"] = lambda *_: None
    device.launch = lambda kernel, launch, params: (0.0, 0.0)  # type: ignore[method-assign]
    assert run(["check", "m.cubin", "k", str(tmp_path)], lambda: device) == 0
    got = read_outputs(STENCIL_KERNEL, tmp_path / "case0", "0")
    assert got is not None and np.isnan(got["out"]).all()


def test_a_write_past_a_buffer_is_reported_with_its_argument(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    _setup(tmp_path, reps=1)
    code, _ = _check(tmp_path, _spill)
    assert code == EXIT_OUT_OF_BOUNDS
    assert "argument 'y'" in capfd.readouterr().err


def test_a_modified_input_changes_its_hash(tmp_path: Path) -> None:
    cases = _setup(tmp_path, reps=1)
    code, _ = _check(tmp_path, _scribble)
    assert code == 0
    assert read_hashes(tmp_path / "case3", "0") != cases[3].input_hashes(SAXPY_KERNEL)


def test_a_device_error_ends_the_run_with_its_status(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    _setup(tmp_path, reps=1)
    code, _ = _check(tmp_path, _broken)
    assert code == EXIT_CUDA_ERROR
    assert "illegal memory access" in capfd.readouterr().err


def test_a_missing_plan_is_an_io_error(tmp_path: Path) -> None:
    code = run(["check", "m.cubin", "k", str(tmp_path)], lambda: FakeDevice({}))
    assert code == EXIT_IO


def test_timing_interleaves_and_rechecks_the_last_call_on_true_inputs(tmp_path: Path) -> None:
    case = build_case(SAXPY_KERNEL, {"n": 1000}, 3, generate_inputs)
    write_cases(tmp_path, [case], reps=0)
    write_plan(tmp_path, SAXPY_KERNEL, [case])
    (tmp_path / "c.cubin").write_bytes(b"")
    (tmp_path / "r.cubin").write_bytes(b"")
    (tmp_path / "timing.cfg").write_text(f"2 30 {1 << 16} 0 12345\n")
    seen: list[float] = []

    def candidate(device: FakeDevice, launch: Launch, params: tuple[Any, ...]) -> None:
        x = device.array(params[2], params[0], "f4")
        seen.append(float((x * np.arange(x.size)).sum()))
        _saxpy(device, launch, params)

    device = FakeDevice({"cand": candidate, "ref": _saxpy})
    argv = ["timing", "c.cubin", "cand", "r.cubin", "ref", str(tmp_path)]
    assert run(argv, lambda: device) == 0
    assert [k for k, _ in device.launched] == ["cand", "ref"] * 32
    parsed = parse_kernel_samples((tmp_path / "timing.txt").read_text())
    assert parsed is not None
    samples, reference_ms = parsed
    assert len(reference_ms) == 30
    assert samples[0].kernel_ms == 0.4 and [s.launches for s in samples] == [1] * 30
    _, a, x, y = case.arrays
    got = read_outputs(SAXPY_KERNEL, tmp_path / "case0", "k")
    assert got is not None
    np.testing.assert_array_equal(got["y"], (a[0] * x + y).astype(np.float32))
    assert read_hashes(tmp_path / "case0", "k") == case.input_hashes(SAXPY_KERNEL)
    assert len(set(seen)) > 1, "inputs are perturbed between timed launches"


def test_a_bad_command_line_is_refused(capfd: pytest.CaptureFixture[str]) -> None:
    assert run(["launch"], lambda: FakeDevice({})) == 64
    assert "usage" in capfd.readouterr().err
