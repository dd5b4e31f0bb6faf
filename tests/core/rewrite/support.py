"""Test support: compile candidates with the real nvcc, and run them on the CPU emulator.

Without a GPU the only way to check what a generated candidate *computes* is to run its
host and kernel code on the CPU: kernel launches are turned into calls of the emulator's
``regrapht_launch`` (every CUDA thread a std::thread), the rest of the CUDA runtime comes from
``emulator/cuda_runtime.h``, and the result is compared with the sequential reference on
the task's correctness sizes. On the GPU machine, :func:`run_on_gpu` does the same with
nvcc and the real runtime.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import ArgSpec, ParamKind, SizeBinding, Task
from regrapht_core.cxx.parse import node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import parse
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.rewrite.protocol import RewriteContext, Rewriter
from regrapht_core.tasks.extract import extract_task

__all__ = [
    "compile_cuda",
    "first_step",
    "launches_to_calls",
    "requires_nvcc",
    "run_on_cpu",
    "run_on_gpu",
    "unvalidated_task",
]

EMULATOR = Path(__file__).parent / "emulator"
_INTEGERS = frozenset(
    [
        "int",
        "unsigned",
        "long",
        "short",
        "char",
        "size_t",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
    ]
)
NVCC = shutil.which("nvcc")
requires_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")


def unvalidated_task(source: str, function: str) -> Task:
    """A test's C++ function as the extractor makes it, without the AddressSanitizer run."""
    return extract_task(source, "cpp", function=function, validate=False)


def first_step(task: Task) -> tuple[str | None, str]:
    """The rewriters' parallelization step from the sequential code: its code and message."""
    proposal = rewriter_propose_fn()(
        ProposeRequest(task, "sequential", "parallelization", task.source)
    )
    return proposal.code, proposal.message


def first_code(task: Task) -> str:
    """The first step's code, for the kernel rewriters to start from; fails without one."""
    code, message = first_step(task)
    assert code is not None, message
    return code


def only_candidate(rewriter: Rewriter, task: Task, code: str | None = None) -> str:
    """The one candidate ``rewriter`` writes from ``code`` (default: the first step's)."""
    (candidate,) = rewriter.apply(code or first_code(task), RewriteContext(task))
    return candidate.code


def refusal_of(rewriter: Rewriter, task: Task, code: str | None = None) -> str:
    """Why ``rewriter`` refuses ``code`` (default: the first step's); fails if it applies."""
    verdict = rewriter.applies(code or first_code(task), RewriteContext(task))
    assert not verdict
    return verdict.reason


def compile_cuda(code: str, work: Path) -> None:
    """Fail the test with nvcc's log unless ``code`` compiles for sm_90."""
    assert NVCC is not None
    source = work / "candidate.cu"
    source.write_text(code)
    argv = [NVCC, "-std=c++17", "-O3", "-arch=sm_90", "-c", str(source), "-o", str(work / "c.o")]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=240)
    assert done.returncode == 0, f"nvcc failed:\n{done.stderr}\n--- code ---\n{code}"


def launches_to_calls(code: str) -> str:
    edits = []
    for node in walk(parse(code).root_node):
        syntax = next((c for c in node.children if c.type == "kernel_call_syntax"), None)
        if node.type != "call_expression" or syntax is None:
            continue
        function, arguments = (
            node.child_by_field_name("function"),
            node.child_by_field_name("arguments"),
        )
        assert function is not None and arguments is not None
        grid, block = (node_text(c) for c in syntax.named_children[:2])
        call = f"{node_text(function)}{node_text(arguments)}"
        edits.append(
            Edit.replace(node, f"regrapht_launch(dim3({grid}), dim3({block}), [&] {{ {call}; }})")
        )
    return apply_edits(code.encode(), edits)


def c_type_name(ctype: str) -> str:
    return " ".join(w for w in ctype.split() if w not in ("const", "volatile"))


def is_integer(ctype: str) -> bool:
    return any(word in _INTEGERS for word in c_type_name(ctype).split())


def _value(expr: str, binding: SizeBinding) -> int | float:
    result = eval(expr, {"__builtins__": {}}, dict(binding))  # test-owned expressions only
    assert isinstance(result, int | float)
    return result


def _literal(value: int | float, ctype: str) -> str:
    if is_integer(ctype):
        return str(int(value))
    return repr(float(value)) + ("f" if c_type_name(ctype) == "float" else "")


def _declare(task: Task, arg: ArgSpec, binding: SizeBinding, seed: int) -> list[str]:
    ctype = c_type_name(arg.ctype)
    if arg.kind is ParamKind.SCALAR:
        assert arg.value is not None
        return [f"    {ctype} {arg.name} = {_literal(_value(arg.value, binding), ctype)};"]
    assert arg.length is not None
    length = int(_value(arg.length, binding))
    column = arg.dist.param("col") if arg.dist.kind == "csr" else None
    if column is not None:  # row pointers must be a ramp from 0 to the nonzero count
        nonzeros = int(_value(task.arg(column).length or "0", binding))
        return [
            f"    std::vector<{ctype}> {arg.name}({length});",
            f"    for (size_t k = 0; k < {length}; ++k) "
            f"{arg.name}[k] = {ctype}(k * {nonzeros} / {max(length - 1, 1)});",
            f"    auto {arg.name}_ref = {arg.name};",
        ]
    lo, hi = arg.dist.lo, arg.dist.hi
    if is_integer(ctype) and arg.dist.kind != "int":
        lo, hi = 0, 9
    # A pointer gets one element past its length (a write there is a mismatch); a vector
    # is passed itself, and its size is its length.
    extra = "" if arg.kind is ParamKind.VECTOR else " + 1"
    return [
        f"    std::vector<{ctype}> {arg.name}({length}{extra});",
        f"    fill({arg.name}, {seed}u, {float(lo)!r}, {float(hi)!r});",
        f"    auto {arg.name}_ref = {arg.name};",
    ]


def _passed(arg: ArgSpec, suffix: str) -> str:
    """How the test's main passes ``arg`` (``suffix``: to the reference's copy)."""
    if arg.kind is ParamKind.SCALAR:
        return arg.name
    return f"{arg.name}{suffix}" if arg.kind is ParamKind.VECTOR else f"{arg.name}{suffix}.data()"


def _main(task: Task, sizes: tuple[SizeBinding, ...]) -> str:
    signature = task.signature.strip().rstrip(";")
    reference = signature.replace(f"{task.entry}(", f"regrapht_ref_{task.entry}(", 1)
    lines = [
        "#include <cmath>",
        "#include <cstdio>",
        "#include <type_traits>",
        "#include <vector>",
        f"{signature};",
        f"{reference};",
        "template <class T> void fill(std::vector<T>& v, unsigned s, double lo, double hi) {",
        "  for (auto& e : v) { s = s * 1664525u + 1013904223u;",
        "    double u = (s >> 8) / double(1u << 24);",
        "    if constexpr (std::is_integral_v<T>) e = T(lo + (long long)(u * (hi - lo + 1)));",
        "    else e = T(lo + u * (hi - lo)); } }",
        "template <class T> bool same(T got, T want, const char* what) {",
        "  if constexpr (std::is_integral_v<T>) { if (got == want) return true; }",
        f"  else if (std::fabs(double(got) - double(want)) <= {task.tolerance.atol!r} + "
        f"{task.tolerance.rtol!r} * std::fabs(double(want))) return true;",
        '  std::printf("MISMATCH %s: got %g want %g\\n", what, double(got), double(want));',
        "  return false; }",
        "int main() {",
        "  bool ok = true;",
    ]
    for number, binding in enumerate(sizes):
        lines.append("  {")
        for index, arg in enumerate(task.args):
            lines += _declare(task, arg, binding, 7 + 31 * index + 1000 * number)
        call = [_passed(a, "") for a in task.args]
        ref = [_passed(a, "_ref") for a in task.args]
        if task.returns != "void":
            lines.append(f"    auto want = regrapht_ref_{task.entry}({', '.join(ref)});")
            lines.append(f"    auto got = {task.entry}({', '.join(call)});")
            lines.append('    ok = same(got, want, "return value") && ok;')
        else:
            lines.append(f"    regrapht_ref_{task.entry}({', '.join(ref)});")
            lines.append(f"    {task.entry}({', '.join(call)});")
        for arg in task.args:
            if arg.kind is ParamKind.SCALAR:
                continue
            lines.append(
                f"    for (size_t k = 0; k < {arg.name}.size(); ++k) "
                f'if (!same({arg.name}[k], {arg.name}_ref[k], "{arg.name}")) '
                "{ ok = false; break; }"
            )
        lines.append("  }")
    lines += ['  std::puts(ok ? "PASS" : "FAIL");', "  return ok ? 0 : 1;", "}"]
    return "\n".join(lines) + "\n"


def _build_and_run(
    argv_prefix: list[str], task: Task, candidate: str, work: Path, suffix: str
) -> str:
    (work / "reference.cpp").write_text(task.source)
    (work / f"candidate.{suffix}").write_text(candidate)
    (work / "main.cpp").write_text(_main(task, tuple(task.correctness_sizes)))
    steps = [
        [*argv_prefix, "-c", str(work / f"candidate.{suffix}"), "-o", str(work / "candidate.o")],
        [
            "g++",
            "-std=c++20",
            "-O1",
            f"-D{task.entry}=regrapht_ref_{task.entry}",
            "-c",
            str(work / "reference.cpp"),
            "-o",
            str(work / "reference.o"),
        ],
        ["g++", "-std=c++20", "-O1", "-c", str(work / "main.cpp"), "-o", str(work / "main.o")],
    ]
    for argv in steps:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=240)
        assert done.returncode == 0, f"{argv[0]} failed:\n{done.stderr}\n--- code ---\n{candidate}"
    return str(work / "candidate.o")


def run_on_cpu(task: Task, candidate: str, work: Path) -> str:
    """``PASS`` when the emulated candidate agrees with the reference on every size."""
    emulated = launches_to_calls(candidate)
    prefix = ["g++", "-std=c++20", "-O1", "-pthread", f"-I{EMULATOR}", "-x", "c++"]
    _build_and_run(prefix, task, emulated, work, "cpp")
    link = [
        "g++",
        "-pthread",
        str(work / "candidate.o"),
        str(work / "reference.o"),
        str(work / "main.o"),
        "-o",
        str(work / "run"),
    ]
    subprocess.run(link, check=True, capture_output=True, timeout=120)
    done = subprocess.run(
        [str(work / "run")], capture_output=True, text=True, timeout=240, check=False
    )
    return (done.stdout + done.stderr).strip()


def run_on_gpu(task: Task, candidate: str, work: Path) -> str:
    """Same as :func:`run_on_cpu`, on the real device."""
    assert NVCC is not None
    _build_and_run([NVCC, "-std=c++17", "-O3", "-arch=sm_90"], task, candidate, work, "cu")
    link = [
        NVCC,
        "-arch=sm_90",
        str(work / "candidate.o"),
        str(work / "reference.o"),
        str(work / "main.o"),
        "-o",
        str(work / "run"),
    ]
    subprocess.run(link, check=True, capture_output=True, timeout=120)
    done = subprocess.run(
        [str(work / "run")], capture_output=True, text=True, timeout=240, check=False
    )
    return (done.stdout + done.stderr).strip()


def all_pass(
    task: Task, codes: Iterable[str], tmp_path: Path, run: Callable[..., str] = run_on_cpu
) -> None:
    """Each code run (``run_on_cpu``, or ``run_on_gpu``) computes what the reference does."""
    for number, code in enumerate(codes):
        work = tmp_path / str(number)
        work.mkdir()
        assert run(task, code, work) == "PASS"


def first_step_computes(task: Task, tmp_path: Path, run: Callable[..., str] = run_on_cpu) -> str:
    """The first step's code, once it computes what the reference does (``run``)."""
    code, message = first_step(task)
    assert code is not None, message
    all_pass(task, [code], tmp_path, run=run)
    return code


def small_corpus_task(path: Path, function: str, size: str, small: str) -> Task:
    """The corpus file at ``path`` with its size ``size`` written ``small`` and only the
    correctness sizes no larger, so the CPU emulator runs it in seconds."""
    source = path.read_text().replace(size, small)
    task = extract_task(source, "cpp", function=function, validate=False)
    kept = tuple(b for b in task.correctness_sizes if all(int(v) <= int(small) for v in b.values()))
    return replace(task, correctness_sizes=kept)
