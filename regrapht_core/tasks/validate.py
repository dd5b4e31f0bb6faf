"""Checking an inferred or annotated spec by running the reference under ASan and UBSan.

Inference can be wrong in ways that only show at run time: a length one short, an
array that is bigger than the loops suggest. Running the sequential reference itself on
generated inputs, each buffer allocated to exactly its spec'd length, turns such a
mistake into an AddressSanitizer report; the report's address is mapped back to the
argument so the error can say which length to fix. The driver is a few lines of C++
appended to the reference and compiled with it; it reads inputs written by numpy.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import ArgSpec, ParamKind, Role, SizeBinding, SourceLanguage, Task
from regrapht_core.errors import ReferenceCompileError, TaskError
from regrapht_core.lifetime import child_group, die_with_parent, scratch
from regrapht_core.tasks.annotation import render_annotation
from regrapht_core.tasks.dtypes import (
    c_type_name,
    cxx_spelling,
    is_arithmetic,
    layout_asserts,
    numpy_dtype,
    vector_element,
)
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.tasks.reference import NVCC_DECLARES
from regrapht_core.tasks.signature import entry_symbol, member_wrapper
from regrapht_core.tasks.sizes import arg_length, scalar_value

__all__ = ["HOST_COMPILER", "SANITIZER_FLAGS", "ValidationRun", "driver_source", "validate_task"]

HOST_COMPILER = "g++"
"""The compiler references are validated with; extraction validates only when it is found."""

SANITIZER_FLAGS = (
    "-x",
    "c++",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    "-fno-omit-frame-pointer",
    "-g",
    "-O1",
    "-fpermissive",
    "-w",
    "-Drestrict=__restrict__",
)
"""``-fpermissive`` and ``restrict`` let plain C references compile as C++; the standard
is the task's (``-std=``:attr:`Task.standard`)."""

_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
_BUFFER = re.compile(r"^regrapht-buffer (\w+) (0x[0-9a-f]+|\(nil\)) (0x[0-9a-f]+|\(nil\))$", re.M)
_ASAN = re.compile(r"AddressSanitizer: ([\w-]+) on address (0x[0-9a-f]+)")
_ACCESS = re.compile(r"(READ|WRITE) of size (\d+)")
_REDZONE = 4096


@dataclass(frozen=True, slots=True)
class ValidationRun:
    """One clean run: the size and what the reference produced (outputs, ``return``)."""

    binding: SizeBinding
    outputs: dict[str, npt.NDArray[np.generic]]


def driver_source(task: Task) -> str:
    """A ``main`` that loads every argument from a directory, calls the entry, saves outputs.

    Elements are bytes: vectors, arrays and buffers of complex numbers, pairs and structs
    are filled with ``fread`` after ``static_assert``s that their layout is the task's; a
    ``std::vector<bool>`` (no ``data()``) is built element by element from one byte per
    element and saved the same way; a ``T&`` scalar is a local passed by reference and
    saved after the call. A member entry is called through
    :func:`~regrapht_core.tasks.signature.member_wrapper`, defined first (the driver
    follows the reference, so the class is in scope): a fresh object for the call.
    """
    wrapper = member_wrapper(task)
    lines = [
        *([wrapper] if wrapper else []),
        "#include <array>",
        "#include <complex>",
        "#include <cstddef>",
        "#include <cstdint>",
        "#include <cstdio>",
        "#include <cstdlib>",
        "#include <type_traits>",
        "#include <utility>",
        "#include <vector>",
        *_layout_checks(task),
        "static FILE* regrapht_open(const char* dir, const char* name, const char* mode) {",
        '  char path[4096]; std::snprintf(path, sizeof path, "%s/%s", dir, name);',
        "  FILE* f = std::fopen(path, mode);",
        '  if (!f) { std::fprintf(stderr, "regrapht: cannot open %s\\n", path); std::exit(3); }',
        "  return f;",
        "}",
        "static void regrapht_load(const char* dir, const char* name, void* p, size_t bytes) {",
        '  FILE* f = regrapht_open(dir, name, "rb");',
        "  if (bytes && std::fread(p, 1, bytes, f) != bytes) std::exit(4);",
        "  std::fclose(f);",
        "}",
        "static void regrapht_save(const char* dir, const char* name, const void* p, size_t b) {",
        '  FILE* f = regrapht_open(dir, name, "wb");',
        "  if (b) std::fwrite(p, 1, b, f);",
        "  std::fclose(f);",
        "}",
        "int main(int argc, char** argv) {",
        "  if (argc != 2) return 2;",
        "  const char* dir = argv[1];",
        '  FILE* meta = regrapht_open(dir, "meta.txt", "r");',
    ]
    call: list[str] = []
    saves: list[str] = []
    for arg in task.args:
        var = f"regrapht_a_{arg.name}"
        ctype = cxx_spelling(arg.ctype)
        call.append(f"std::span<{ctype}>({var}, {var}_n)" if arg.kind is ParamKind.SPAN else var)
        if arg.kind is ParamKind.SCALAR:
            lines += _scalar_lines(arg, var, ctype)
            if arg.role is not Role.IN:
                saves.append(f'  regrapht_save(dir, "{arg.name}.out", &{var}, sizeof {var});')
            continue
        buffer, save = _buffer_lines(arg, var, ctype)
        lines += buffer
        saves += save
    lines.append("  std::fclose(meta);")
    invocation = f"{entry_symbol(task)}({', '.join(call)})"
    element = vector_element(task.returns)
    if task.returns == "void":
        lines.append(f"  {invocation};")
    else:
        lines.append(f"  auto regrapht_result = {invocation};")
        if element is not None and _is_bool(element):
            saves += _save_bools("return.out", "regrapht_result")
        elif element is not None:
            saves.append(
                '  regrapht_save(dir, "return.out", regrapht_result.data(), '
                f"regrapht_result.size() * sizeof({cxx_spelling(element)}));"
            )
        else:
            saves.append(
                '  regrapht_save(dir, "return.out", &regrapht_result, sizeof regrapht_result);'
            )
    lines += saves
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def _buffer_lines(arg: ArgSpec, var: str, ctype: str) -> tuple[list[str], list[str]]:
    """A pointer, vector, array or span argument: its allocation and load, and its save
    (a span's elements are a ``new[]`` block, as a pointer's)."""
    lines = [
        f"  unsigned long long {var}_n = 0;",
        f'  if (std::fscanf(meta, "%*s %llu", &{var}_n) != 1) return 5;',
    ]
    if arg.kind is ParamKind.VECTOR and _is_bool(arg.ctype):
        lines.append(f"  std::vector<unsigned char> {var}_bytes({var}_n);")
        if arg.role is not Role.OUT:
            lines.append(f'  regrapht_load(dir, "{arg.name}.bin", {var}_bytes.data(), {var}_n);')
        lines.append(f"  std::vector<bool> {var}({var}_bytes.begin(), {var}_bytes.end());")
        return lines, _save_bools(f"{arg.name}.out", var) if arg.role is not Role.IN else []
    if arg.kind is ParamKind.VECTOR:
        lines.append(f"  std::vector<{ctype}> {var}({var}_n);")
    elif arg.kind is ParamKind.ARRAY:
        lines += [
            f"  std::array<{ctype}, {arg.length}> {var}{{}};",
            f"  if ({var}_n != {var}.size()) return 6;",
        ]
    else:
        lines.append(f"  {ctype}* {var} = new {ctype}[{var}_n]();")
    data = var if arg.kind in (ParamKind.POINTER, ParamKind.SPAN) else f"{var}.data()"
    bytes_ = f"{var}_n * sizeof({ctype})"
    if arg.role is not Role.OUT:
        lines.append(f'  regrapht_load(dir, "{arg.name}.bin", {data}, {bytes_});')
    lines.append(
        f'  std::fprintf(stderr, "regrapht-buffer {arg.name} %p %p\\n", '
        f"(void*){data}, (void*)({data} + {var}_n));"
    )
    if arg.role is Role.IN:
        return lines, []
    size = f"{var}.size() * sizeof({ctype})" if arg.kind is ParamKind.VECTOR else bytes_
    return lines, [f'  regrapht_save(dir, "{arg.name}.out", {data}, {size});']


def _layout_checks(task: Task) -> list[str]:
    """``static_assert``s that every complex, pair and struct element is laid out as the
    task's dtype says, and that structs can be copied as bytes."""
    ctypes = [a.ctype for a in task.args] + [task.returns]
    lines = layout_asserts(ctypes, task.records, tag="check")
    for record in task.records:
        lines.append(
            f"static_assert(std::is_trivially_copyable<{record.name}>::value, "
            f'"regrapht: {record.name} must be trivially copyable (no user-defined copy, '
            'move or destructor) to be an element type");'
        )
    return lines


def _scalar_lines(arg: ArgSpec, var: str, ctype: str) -> list[str]:
    """A scalar's local: a number from ``meta.txt``, anything else from its ``.bin``."""
    if not is_arithmetic(arg.ctype):
        return [
            '  if (std::fscanf(meta, "%*s %*s") != 0) return 5;',
            f"  {ctype} {var}{{}};",
            f'  regrapht_load(dir, "{arg.name}.bin", &{var}, sizeof {var});',
        ]
    fmt, holder = ("%lf", "double") if numpy_dtype(ctype).kind == "f" else ("%lld", "long long")
    return [
        f"  {holder} {var}_raw = 0;",
        f'  if (std::fscanf(meta, "%*s {fmt}", &{var}_raw) != 1) return 5;',
        f"  {ctype} {var} = ({ctype}){var}_raw;",
    ]


def _save_bools(file: str, var: str) -> list[str]:
    """A ``std::vector<bool>`` saved one byte per element."""
    return [
        f"  {{ std::vector<unsigned char> bytes({var}.begin(), {var}.end());",
        f'    regrapht_save(dir, "{file}", bytes.data(), bytes.size()); }}',
    ]


def _is_bool(ctype: str) -> bool:
    return c_type_name(ctype) == "bool"


def validate_task(
    task: Task,
    *,
    sizes: Sequence[SizeBinding] | None = None,
    seed: int = 0,
    timeout_s: float = 60.0,
    compiler: str = HOST_COMPILER,
) -> tuple[ValidationRun, ...]:
    """Compile and run the reference at ``sizes`` (default: two small correctness sizes).

    Raises TaskError naming the argument whose length looks wrong, with the annotation to
    fix it; CUDA references cannot run here and are refused the same way.
    """
    if task.language is not SourceLanguage.CPP:
        raise TaskError(
            f"{task.name}: the reference uses CUDA; it cannot be validated under "
            "AddressSanitizer on the CPU (the verifier checks it on the GPU instead)"
        )
    if shutil.which(compiler) is None:
        raise TaskError(f"{task.name}: {compiler!r} is not installed; it is needed to validate")
    chosen = list(sizes) if sizes is not None else _small_sizes(task)
    with scratch("validate-") as work:
        exe = _compile(task, work, compiler, timeout_s)
        return tuple(_run(task, exe, work, b, seed=seed, timeout_s=timeout_s) for b in chosen)


def _small_sizes(task: Task) -> list[SizeBinding]:
    small = [b for b in task.correctness_sizes if dict(b) != dict(task.timing_size)]
    if not small:
        return [task.timing_size]
    return [small[1], small[-1]] if len(small) > 2 else small


def _compile(task: Task, work: Path, compiler: str, timeout_s: float) -> Path:
    source = work / "reference_driver.cpp"
    source.write_text(task.source + "\n\n" + driver_source(task), encoding="utf-8")
    exe = work / "reference_driver"
    cmd = [compiler, *SANITIZER_FLAGS, f"-std={task.standard}", str(source), "-o", str(exe), "-lm"]
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            preexec_fn=die_with_parent(),
        )
    except subprocess.TimeoutExpired:
        raise TaskError(f"{task.name}: compiling the reference took over {timeout_s}s") from None
    if done.returncode != 0:
        # Positions are the reference unit's (re-assembled from the file), not the file's.
        log = re.sub(rf"{re.escape(str(source))}:\d+:\d+: ", "", done.stderr)
        errors = [ln for ln in log.splitlines() if "error" in ln][:5]
        raise ReferenceCompileError(
            f"{task.name}: the reference does not compile on its own with {compiler} "
            "(a helper, type or include it needs may be missing):\n  "
            + "\n  ".join(errors)
            + _header_hint(log)
        )
    return exe


_HEADERS = {
    **{name: f"<{header}>" for name, header in NVCC_DECLARES.items()},
    "memcpy": "<cstring>",
    "memset": "<cstring>",
    "accumulate": "<numeric>",
    "iota": "<numeric>",
    "clamp": "<algorithm>",
    "sort": "<algorithm>",
    "min_element": "<algorithm>",
    "max_element": "<algorithm>",
}
"""Names other compilers' headers often bring along and g++'s do not, with the header that
declares them: those nvcc declares in every unit (the reference unit includes their headers
itself, but a task validated without extraction is the file as written), and more."""
_UNDECLARED = re.compile(
    r"'(?:std::)?(\w+)' (?:was not declared|does not name a type|is not a member)"
)


def _header_hint(log: str) -> str:
    """What to include, when the reference uses a standard name its file never includes
    (``memcpy`` with only ``<vector>``: other compilers' headers declare it, g++'s do not;
    ``size_t`` and the fixed-width integers the reference unit includes for itself)."""
    names = re.findall(_UNDECLARED, log.replace("\u2018", "'").replace("\u2019", "'"))
    wanted = sorted({f"{_HEADERS[n]} for {n}" for n in names if n in _HEADERS})
    return f"\n  add #include {'; '.join(wanted)}" if wanted else ""


def _run(
    task: Task, exe: Path, work: Path, binding: SizeBinding, *, seed: int, timeout_s: float
) -> ValidationRun:
    case = work / "case"
    shutil.rmtree(case, ignore_errors=True)
    case.mkdir()
    inputs = generate_inputs(task, binding, seed)
    meta = []
    for arg in task.args:
        if arg.kind is ParamKind.SCALAR and is_arithmetic(arg.ctype):
            meta.append(f"{arg.name} {scalar_value(arg, binding)!r}")
            continue
        if arg.kind is ParamKind.SCALAR:
            meta.append(f"{arg.name} 1")
            value = inputs.get(arg.name)
            if isinstance(value, np.ndarray):
                value.tofile(case / f"{arg.name}.bin")
            continue
        meta.append(f"{arg.name} {arg_length(arg, binding)}")
        value = inputs.get(arg.name)
        if isinstance(value, np.ndarray):
            value.tofile(case / f"{arg.name}.bin")
    (case / "meta.txt").write_text("\n".join(meta) + "\n", encoding="utf-8")
    with (
        subprocess.Popen(
            [str(exe), str(case)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **_ENV},
            start_new_session=True,
            preexec_fn=die_with_parent(),  # noqa: PLW1509 - a child must not outlive a killed server
        ) as proc,
        child_group(proc.pid),
    ):
        try:
            _, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise TaskError(
                f"{task.name}: the reference did not finish within {timeout_s}s at "
                f"{dict(binding)}; a loop bound may not be a size variable"
            ) from None
    if proc.returncode != 0:
        raise _diagnose(task, binding, stderr, proc.returncode)
    return ValidationRun(dict(binding), _outputs(task, case))


def _outputs(task: Task, case: Path) -> dict[str, npt.NDArray[np.generic]]:
    out: dict[str, npt.NDArray[np.generic]] = {}
    for arg in task.args:
        if arg.role is not Role.IN:
            dtype = numpy_dtype(arg.ctype, records=task.records)
            out[arg.name] = np.fromfile(case / f"{arg.name}.out", dtype=dtype)
    result = case / "return.out"
    if result.exists():
        element = vector_element(task.returns) or task.returns
        out["return"] = np.fromfile(result, dtype=numpy_dtype(element, records=task.records))
    return out


def _diagnose(task: Task, binding: SizeBinding, stderr: str, code: int) -> TaskError:
    at = f"{task.name} at {dict(binding)}"
    asan = _ASAN.search(stderr)
    if asan is not None:
        address = int(asan.group(2), 16)
        access = _ACCESS.search(stderr)
        verb = "wrote" if access and access.group(1) == "WRITE" else "read"
        arg = _owner(task, stderr, address)
        if arg is not None:
            length = arg_length(arg, binding)
            fix = render_annotation(
                task.args,
                task.timing_size,
                frozenset({arg.name}),
                return_length=task.return_length,
            )
            return TaskError(
                f"{at}: the reference {verb} outside argument {arg.name!r} "
                f"({asan.group(1)}); its length {arg.length!r} = {length} looks too small. "
                f"Fix the length in an annotation directly above the function:\n    {fix}"
            )
        return TaskError(f"{at}: AddressSanitizer reports {asan.group(1)} outside the arguments")
    for line in stderr.splitlines():
        if "runtime error:" in line:
            return TaskError(f"{at}: the reference has undefined behaviour: {line.strip()}")
    tail = "\n  ".join(stderr.strip().splitlines()[-5:])
    return TaskError(f"{at}: the reference exited with status {code}:\n  {tail}")


def _owner(task: Task, stderr: str, address: int) -> ArgSpec | None:
    """The argument whose buffer ends just before (or starts just after) ``address``."""
    best: tuple[int, str] | None = None
    for name, begin_text, end_text in _BUFFER.findall(stderr):
        if "nil" in begin_text:
            continue
        begin, end = int(begin_text, 16), int(end_text, 16)
        if begin - _REDZONE <= address < end + _REDZONE:
            distance = (
                0 if begin <= address < end else min(abs(address - begin), abs(address - end))
            )
            if best is None or distance < best[0]:
                best = (distance, name)
    return task.arg(best[1]) if best is not None else None
