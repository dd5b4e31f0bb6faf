"""The kernel→kernel harness: launch one kernel of a compiled module over a run directory.

The verifier starts this file in a fresh, bounded process (``sandbox.py``), staged into the
run directory next to :mod:`protocol` and :mod:`lockdown` and nothing else of the project,
so it imports only the standard library, numpy and, on the device, pycuda (the optional
``gpu`` extra). Once its CUDA context exists, the process installs the system-call filter
(:mod:`lockdown`) before any module of the candidate is loaded or launched. It
reads and writes exactly the files of the C++ harness (``harness.py``), so the pipeline
judges both kinds of candidate with the same code:

* ``check MODULE SYMBOL DIR``: per case (``cases.txt``, ``caseK/aI.bin``) and per repetition,
  restore the inputs, poison the outputs, launch with the case's grid/block/shared bytes
  from ``kernel.json``, synchronize, check the guard bytes around every buffer, and write
  the outputs and a hash of every input (``oR_I.bin``, ``hR.txt``).
* ``timing CANDIDATE SYMBOL REFERENCE SYMBOL DIR``: both modules in one context (they define
  the same kernel, so they stay separate modules), interleaved timed launches on the first
  case with the L2 cache flushed before each; inputs perturbed between timed launches (so a
  cached result goes stale); the last candidate launch runs on the true inputs and its
  outputs are written (tag ``k``) for the re-check; samples go to ``timing.txt``.

The device is an injected :class:`Device`: :class:`PyCudaDevice` on a GPU, a fake in tests.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, Protocol

import numpy as np
import numpy.typing as npt

from regrapht_core.verify.lockdown import install_lockdown
from regrapht_core.verify.protocol import (
    EXIT_CUDA_ERROR,
    EXIT_IO,
    EXIT_OUT_OF_BOUNDS,
    GUARD_BYTE,
    input_hash,
    poison,
)

__all__ = ["GUARD_BYTES", "Device", "DeviceError", "Launch", "PyCudaDevice", "main", "run"]

GUARD_BYTES = 4096
"""Checked bytes on each side of every device buffer; a multiple of 256, so the data the
kernel sees keeps the alignment of a fresh allocation."""

_MASK64 = (1 << 64) - 1
Bytes = npt.NDArray[np.uint8]


class DeviceError(Exception):
    """A launch or runtime error of the device; the context is no longer trustworthy."""


@dataclass(frozen=True, slots=True)
class Launch:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int


class Device(Protocol):
    """What the runner needs from a GPU; every call may raise :class:`DeviceError`."""

    def alloc(self, nbytes: int) -> int: ...
    def free(self, address: int) -> None: ...
    def upload(self, address: int, data: npt.NDArray[Any]) -> None: ...
    def download(self, address: int, nbytes: int) -> Bytes: ...
    def fill(self, address: int, byte: int, nbytes: int) -> None:
        """Set ``nbytes`` bytes and wait for it (the L2 flush before a timed launch)."""

    def kernel(self, module: Path, symbol: str) -> object: ...
    def launch(self, kernel: object, launch: Launch, params: bytes) -> tuple[float, float]:
        """Launch and synchronize; host-clock and event milliseconds around the launch."""


class _Exit(Exception):
    """Ends the run with an exit status the pipeline maps to a verdict (``protocol.py``)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _fail(code: int, message: str) -> NoReturn:
    raise _Exit(code, message)


class _Arguments:
    """One case's arguments on the device, each buffer between two guard zones."""

    def __init__(self, device: Device, specs: Sequence[dict[str, Any]], folder: Path) -> None:
        self._device = device
        self._specs = specs
        self.host: list[npt.NDArray[Any]] = []
        self.addresses: list[int] = []
        for index, spec in enumerate(specs):
            dtype = np.dtype(spec["dtype"])
            raw = (folder / f"a{index}.bin").read_bytes()
            if len(raw) % dtype.itemsize or (not spec["pointer"] and len(raw) != dtype.itemsize):
                _fail(EXIT_IO, f"runner: input file a{index}.bin has the wrong size")
            self.host.append(np.frombuffer(raw, dtype=dtype).copy())
            if spec["pointer"]:
                address = device.alloc(len(raw) + 2 * GUARD_BYTES)
                guard = np.full(GUARD_BYTES, GUARD_BYTE, dtype=np.uint8)
                device.upload(address, guard)
                device.upload(address + GUARD_BYTES + len(raw), guard)
                self.addresses.append(address)
            else:
                self.addresses.append(0)

    def free(self) -> None:
        for spec, address in zip(self._specs, self.addresses, strict=True):
            if spec["pointer"]:
                self._device.free(address)

    def prepare(self, swap: tuple[int, int] | None = None) -> None:
        """Inputs restored (two elements of each float input swapped when ``swap`` is
        given), outputs poisoned: what the C++ harness's ``prepare``/``perturb`` do."""
        for index, spec in enumerate(self._specs):
            if not spec["pointer"]:
                continue
            data = self.host[index]
            target = self.addresses[index] + GUARD_BYTES
            if spec["role"] == "out":
                self._device.upload(target, poison(data.nbytes, floating=data.dtype.kind == "f"))
                continue
            if swap is not None and spec["role"] == "in" and data.dtype.kind == "f":
                data = _swapped(data, swap)
            self._device.upload(target, data)

    def params(self) -> bytes:
        """The kernel's parameter buffer: C layout, each value at its natural alignment."""
        layout, values = "@", []
        for index, spec in enumerate(self._specs):
            if spec["pointer"]:
                layout += "P"
                values.append(self.addresses[index] + GUARD_BYTES)
            else:
                layout += self.host[index].dtype.char
                values.append(self.host[index][0].item())
        return struct.pack(layout, *values)

    def check_guards(self) -> None:
        for index, spec in enumerate(self._specs):
            if not spec["pointer"]:
                continue
            data, address = self.host[index], self.addresses[index]
            after = address + GUARD_BYTES + data.nbytes
            for start in (address, after):
                if np.any(self._device.download(start, GUARD_BYTES) != GUARD_BYTE):
                    _fail(
                        EXIT_OUT_OF_BOUNDS,
                        f"wrote outside the {data.size} elements of argument '{spec['name']}'",
                    )

    def write_results(self, folder: Path, tag: str) -> None:
        """Outputs as ``o<tag>_<index>.bin``, input hashes as ``h<tag>.txt``."""
        hashes = []
        for index, spec in enumerate(self._specs):
            if not spec["pointer"]:
                continue
            data = self.host[index]
            got = self._device.download(self.addresses[index] + GUARD_BYTES, data.nbytes)
            if spec["role"] == "in":
                hashes.append(f"{index} {input_hash(got.tobytes())}\n")
            else:
                got.tofile(folder / f"o{tag}_{index}.bin")
        (folder / f"h{tag}.txt").write_text("".join(hashes))


def _swapped(data: npt.NDArray[Any], swap: tuple[int, int]) -> npt.NDArray[Any]:
    count = data.size
    if count < 2:
        return data
    i, j = swap[0] % count, swap[1] % count
    if i == j:
        j = (j + 1) % count
    copy = data.copy()
    copy[i], copy[j] = data[j], data[i]
    return copy


def _launches(plan: dict[str, Any]) -> list[Launch]:
    return [
        Launch(tuple(case["grid"]), tuple(case["block"]), int(case["shared"]))
        for case in plan["cases"]
    ]


def _check(device: Device, root: Path, plan: dict[str, Any], module: str, symbol: str) -> None:
    cases, reps = (int(word) for word in (root / "cases.txt").read_text().split())
    kernel = device.kernel(root / module, symbol)
    launches = _launches(plan)
    for k in range(cases):
        folder = root / f"case{k}"
        args = _Arguments(device, plan["args"], folder)
        for rep in range(reps):
            args.prepare()
            device.launch(kernel, launches[k], args.params())
            args.check_guards()
            args.write_results(folder, str(rep))
        args.free()


def _next_random(state: int) -> int:
    """xorshift64, as the C++ timing harness draws its perturbations."""
    state ^= (state << 13) & _MASK64
    state ^= state >> 7
    state ^= (state << 17) & _MASK64
    return state


def _timing(
    device: Device,
    root: Path,
    plan: dict[str, Any],
    candidate: Sequence[str],
    reference: Sequence[str],
) -> None:
    words = (root / "timing.cfg").read_text().split()
    warmups, runs, flush_bytes, seed = int(words[0]), int(words[1]), int(words[2]), int(words[4])
    folder = root / "case0"
    launch = _launches(plan)[0]
    mine = device.kernel(root / candidate[0], candidate[1])
    theirs = device.kernel(root / reference[0], reference[1])
    ours, ref = _Arguments(device, plan["args"], folder), _Arguments(device, plan["args"], folder)
    flush = device.alloc(flush_bytes)
    state = seed | 1
    lines = []
    for i in range(warmups + runs):
        last = i == warmups + runs - 1
        state = _next_random(state)
        first = state
        state = _next_random(state)
        ours.prepare(None if last else (first, state))
        device.fill(flush, state & 0xFF, flush_bytes)
        host_ms, event_ms = device.launch(mine, launch, ours.params())
        ours.check_guards()
        if last:
            ours.write_results(folder, "k")
        ref.prepare()
        device.fill(flush, state & 0xFF, flush_bytes)
        _, reference_ms = device.launch(theirs, launch, ref.params())
        if i >= warmups:
            lines.append(f"{host_ms:.6f} {event_ms:.6f} {event_ms:.6f} {reference_ms:.6f} 1\n")
    (root / "timing.txt").write_text("".join(lines))


def run(argv: Sequence[str], device: Callable[[], Device]) -> int:
    """Dispatch ``check``/``timing`` (see the module docstring); the exit status, with the
    reason on stderr (device errors: 2, a spill past a buffer: 4, unreadable files: 5)."""
    command = argv[0] if argv else ""
    try:
        if command == "check" and len(argv) == 4:
            root = Path(argv[-1])
            _check(device(), root, _plan(root), argv[1], argv[2])
        elif command == "timing" and len(argv) == 6:
            root = Path(argv[-1])
            _timing(device(), root, _plan(root), argv[1:3], argv[3:5])
        else:
            _fail(64, "usage: kernel_runner check MODULE SYMBOL DIR | timing CM CS RM RS DIR")
    except DeviceError as error:
        return _report(EXIT_CUDA_ERROR, f"CUDA error: {error}")
    except _Exit as error:
        return _report(error.code, str(error))
    except (OSError, ValueError, KeyError) as error:
        return _report(EXIT_IO, f"runner: unreadable run directory: {error}")
    return 0


def _plan(root: Path) -> dict[str, Any]:
    plan: dict[str, Any] = json.loads((root / "kernel.json").read_text())
    return plan


def _report(code: int, message: str) -> int:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    return code


class PyCudaDevice:
    """The device through pycuda's driver API, in a context of its own on GPU 0, in a
    process locked down (:mod:`lockdown`) once the context exists: creating it is the
    driver's only start-up work, and everything after it runs the candidate's kernels."""

    def __init__(self) -> None:
        try:
            import pycuda.driver as cuda
        except ImportError as error:
            raise DeviceError(f"pycuda is not importable: {error}") from None
        self._cuda: Any = cuda
        try:
            cuda.init()
            self._context = cuda.Device(0).make_context()
            self._start, self._stop = cuda.Event(), cuda.Event()
        except cuda.Error as error:
            raise DeviceError(str(error)) from None
        if not install_lockdown():
            raise DeviceError("the system-call filter could not be installed")
        self._owned: dict[int, Any] = {}
        self._modules: list[Any] = []

    def _call(self, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except self._cuda.Error as error:
            raise DeviceError(str(error)) from None

    def alloc(self, nbytes: int) -> int:
        allocation = self._call(lambda: self._cuda.mem_alloc(max(nbytes, 1)))
        self._owned[int(allocation)] = allocation
        return int(allocation)

    def free(self, address: int) -> None:
        self._call(self._owned.pop(address).free)

    def upload(self, address: int, data: npt.NDArray[Any]) -> None:
        self._call(lambda: self._cuda.memcpy_htod(address, np.ascontiguousarray(data)))

    def download(self, address: int, nbytes: int) -> Bytes:
        out = np.empty(nbytes, dtype=np.uint8)
        self._call(lambda: self._cuda.memcpy_dtoh(out, address))
        return out

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        self._call(lambda: self._cuda.memset_d8(address, byte, nbytes))
        self._call(self._context.synchronize)

    def kernel(self, module: Path, symbol: str) -> object:
        loaded = self._call(lambda: self._cuda.module_from_file(str(module)))
        self._modules.append(loaded)
        function = self._call(lambda: loaded.get_function(symbol))
        attribute = self._cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES
        return _SharedLimit(function, attribute)

    def launch(self, kernel: object, launch: Launch, params: bytes) -> tuple[float, float]:
        assert isinstance(kernel, _SharedLimit)
        buffer = np.frombuffer(params, dtype=np.uint8)

        def timed() -> tuple[float, float]:
            kernel.allow(launch.shared)
            self._context.synchronize()
            start = time.perf_counter()
            self._start.record()
            kernel.function(buffer, grid=launch.grid, block=launch.block, shared=launch.shared)
            self._stop.record()
            self._stop.synchronize()
            host_ms = (time.perf_counter() - start) * 1e3
            self._context.synchronize()
            return host_ms, float(self._stop.time_since(self._start))

        result: tuple[float, float] = self._call(timed)
        return result


@dataclass(slots=True)
class _SharedLimit:
    """A kernel function and the dynamic shared memory it has been allowed so far (above
    48 KiB the driver needs an explicit opt-in per function)."""

    function: Any
    attribute: Any
    allowed: int = 48 << 10

    def allow(self, shared: int) -> None:
        if shared > self.allowed:
            self.function.set_attribute(self.attribute, shared)
            self.allowed = shared


def main() -> None:
    """Exit without interpreter teardown: no driver calls after a context may be broken."""
    sys.stdout.flush()
    os._exit(run(sys.argv[1:], PyCudaDevice))


if __name__ == "__main__":
    main()
