"""Indices named through locals (issue 17): ``int i = y * width + x; out[i] = ...``.

The analysis reads a local that never changes after its definition as its initializer;
every way the local could change, or mean another variable at the use, keeps the refusal.
The rewriters still emit the user's code verbatim.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import SourceLanguage, Task
from regrapht_core.cxx.definitions import IndexValues
from regrapht_core.cxx.dependence import LoopFacts, analyse_loop
from regrapht_core.cxx.entry import entry_function
from regrapht_core.cxx.loops import counted_loop
from regrapht_core.cxx.parse import node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.symbols import file_symbols
from regrapht_core.cxx.syntax import canon, parse
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import run_on_cpu

BRIGHTEN = """\
void brighten(const float* in, float* out, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            int i = y * width + x;
            out[i] = in[i] * 1.5f + 0.1f;
        }
}
"""

ROW_OFFSET = """\
#include <cstddef>
void scale_rows(const float* in, float* out, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        const size_t row = r * cols;
        for (int c = 0; c < cols; ++c) {
            out[row + c] = 2.0f * in[row + c];
        }
    }
}
"""

CHAIN = """\
void chain(const float* in, float* out, int width, int height) {
    for (int y = 0; y < height; ++y) {
        const int base = y * width;
        for (int x = 0; x < width; ++x) {
            int i = base + x;
            auto k = i;
            out[k] = in[i] + 1.0f;
        }
    }
}
"""

SHIFTED = """\
void shifted(const float* in, float* out, int n) {
    for (int i = 0; i < n; ++i) {
        const int j = i + 1;
        out[j - 1] = in[j - 1] * 0.5f;
    }
}
"""

STATIC_CAST = """\
#include <cstddef>
// regrapht: height = 64; width = 48; in[height*width] in; out[height*width] out
void cast_index(const float* in, float* out, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            size_t idx = static_cast<size_t>(y) * width + x;
            out[idx] = in[idx] - 1.0f;
        }
}
"""

ACCEPTED = {
    "brighten": (BRIGHTEN, "y * width + x"),
    "scale_rows": (ROW_OFFSET, "r * cols + c"),
    "chain": (CHAIN, "y * width + x"),
    "shifted": (SHIFTED, "i + 1 - 1"),
    "cast_index": (STATIC_CAST, "y * width + x"),
}


def _task(source: str, function: str) -> Task:
    return extract_task(source, SourceLanguage.CPP, function=function, validate=False)


def _facts(source: str, function: str) -> LoopFacts:
    task = _task(source, function)
    root = parse(task.source).root_node
    return analyse_loop(entry_function(root, task), file_symbols(root))


def _written_index(facts: LoopFacts, array: str = "out") -> str:
    (access,) = [a for a in facts.accesses if a.array == array and a.write]
    return " ".join(canon(access.index).replace("( ", "(").replace(" )", ")").split())


@pytest.mark.parametrize("function", list(ACCEPTED))
def test_a_named_index_is_read_as_its_definition(function: str) -> None:
    source, index = ACCEPTED[function]
    facts = _facts(source, function)
    assert facts.unowned == ""
    assert "out" in facts.written
    assert _written_index(facts).replace("(", "").replace(")", "") == index


def _propose(source: str, function: str) -> tuple[str | None, str]:
    task = _task(source, function)
    request = ProposeRequest(task, "sequential", "parallelization", task.source)
    proposal = rewriter_propose_fn()(request)
    return proposal.code, proposal.message


@pytest.mark.parametrize("function", list(ACCEPTED))
def test_the_rewriter_maps_the_loop_and_keeps_the_local_verbatim(function: str) -> None:
    source, _ = ACCEPTED[function]
    code, message = _propose(source, function)
    assert code is not None, message
    kernel = code[code.index("__global__") : code.index(f"void {function}(")]
    for line in source.splitlines():
        declaration = line.strip()
        if declaration.startswith(("int ", "const ", "size_t ", "auto ")):
            assert declaration in kernel


def test_brighten_gets_the_2d_launch() -> None:
    code, message = _propose(BRIGHTEN, "brighten")
    assert code is not None, message
    assert "dim3 block(32, 8)" in code
    assert "int i = y * width + x;" in code


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("function", list(ACCEPTED))
def test_the_candidates_compile_with_nvcc(function: str, tmp_path: Path) -> None:
    source, _ = ACCEPTED[function]
    code, message = _propose(source, function)
    assert code is not None, message
    path = tmp_path / "candidate.cu"
    path.write_text(code)
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    argv = [nvcc, "-std=c++17", "-c", "-x", "cu", "-o", "/dev/null", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=240)
    assert done.returncode == 0, f"{done.stderr}\n--- code ---\n{code}"


@pytest.mark.slow
@pytest.mark.parametrize("function", ["scale_rows", "chain"])
def test_the_candidates_compute_what_the_reference_computes(function: str, tmp_path: Path) -> None:
    source, _ = ACCEPTED[function]
    task = _task(source, function)
    code, message = _propose(source, function)
    assert code is not None, message
    assert run_on_cpu(task, code, tmp_path) == "PASS"


def _loop(body: str, *, prelude: str = "", params: str = "") -> str:
    return (
        f"{prelude}// regrapht: n = 64; in[n] in; out[n] out\n"
        f"void f(const float* in, float* out, int n{params}) {{\n"
        f"    for (int x = 0; x < n; ++x) {{\n{body}\n    }}\n}}\n"
    )


REFUSED = {
    "reassigned": _loop("int i = x;\n if (x > 0) i = 0;\n out[i] = in[x];"),
    "incremented": _loop("int i = x;\n ++i;\n out[i] = in[x];"),
    "post-incremented": _loop("int i = x;\n i++;\n out[i] = in[x];"),
    "compound-assigned": _loop("int i = x;\n i -= x;\n out[i] = in[x];"),
    "assigned-in-branches": _loop(
        "int i;\n if (x % 2) { i = x; } else { i = 0; }\n out[i] = in[x];"
    ),
    "declared-in-a-condition": _loop("if (int i = x / 2) { out[i] = in[x]; }"),
    "address-taken": _loop("int i = x;\n const int* p = &i;\n out[i] = in[x] + p[0];"),
    "changed-by-a-macro": _loop(
        "int i = x;\n CLEAR(i);\n out[i] = in[x];", prelude="#define CLEAR(v) ((v) = 0)\n"
    ),
    "colliding": _loop("int i = x % 4;\n out[i] = in[x];"),
    "narrowing-type": _loop("unsigned char i = x;\n out[i] = in[x];"),
    "float-initializer": _loop("int i = x * scale;\n out[i] = in[x];", params=", float scale"),
    "defined-from-a-changing-local": _loop("int k = x;\n k = 0;\n int i = k;\n out[i] = in[x];"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_local_that_may_change_is_not_read_through(name: str) -> None:
    with pytest.raises(Refusal, match="not affine in `x`"):
        _facts(REFUSED[name], "f")


def test_an_inner_variable_shadowed_at_the_use_is_not_read_through() -> None:
    """``i`` is defined from the outer ``j`` (up to ``2*w``); inlined at the use, the name
    would mean the inner ``j``, which stays in ``[0, w)``."""
    source = """\
// regrapht: h = 8; w = 8; in[2*w] in; out[h*w + 2*w] out
void f(const float* in, float* out, int h, int w) {
    for (int y = 0; y < h; ++y)
        for (int j = 0; j < 2 * w; ++j) {
            int i = y * w + j;
            for (int j = 0; j < w; ++j) out[i] = in[j];
        }
}
"""
    with pytest.raises(Refusal, match="not affine in `y`"):
        _facts(source, "f")


def test_an_inner_variable_is_stable_only_inside_its_loop() -> None:
    """``j`` declared before its loop is a plain local the loop steps: not read through."""
    source = """\
// regrapht: h = 8; w = 8; in[2*w] in; out[h*w + 2*w] out
void f(const float* in, float* out, int h, int w) {
    for (int y = 0; y < h; ++y) {
        int j = 0;
        int i = y * w + j;
        for (j = 0; j < w; ++j) out[i] = in[j];
    }
}
"""
    with pytest.raises(Refusal, match="not affine in `y`"):
        _facts(source, "f")


def _read_through(body: str) -> str:
    """The last subscript's index in a loop over ``x``, as :class:`IndexValues` reads it."""
    root = parse(f"void f(float* out, int n) {{ for (int x = 0; x < n; ++x) {{ {body} }} }}")
    node = next(n for n in walk(root.root_node) if n.type == "for_statement")
    loop = counted_loop(node)
    values = IndexValues(loop, {}, {"x", "n"}, {"CLEAR"})
    subscript = [n for n in walk(loop.body) if n.type == "subscript_expression"][-1]
    indices = subscript.child_by_field_name("indices")
    assert indices is not None
    return node_text(values.value(indices.named_children[0]))


@pytest.mark.parametrize(
    ("body", "read"),
    [
        ("int i = 2 * x + 1; out[i] = 0;", "(2 * x + 1)"),
        ("const long a = x, b = a + n; out[b] = 0;", "(x + n)"),
        ("int i = static_cast<int>(x) + (long)n; out[i] = 0;", "(x + n)"),
        ("int i = x; { int j = i; out[j] = 0; }", "x"),
        ("int i = x; const int& r = i; out[i] = 0;", "i"),
        ("int i = x; const_cast<int&>(i) = 0; out[i] = 0;", "i"),
        ("int i = x; int* p = &(i); out[i] = 0;", "i"),
        ("int i = x; CLEAR(i); out[i] = 0;", "i"),
        ("int i = x; { int i = 0; } out[i] = 0;", "i"),
        ("int i = out[x]; out[i] = 0;", "i"),
        ("int i = f(x); out[i] = 0;", "i"),
        ("short i = x; out[i] = 0;", "i"),
        ("volatile int i = x; out[i] = 0;", "i"),
        ("int i = x * 0.5; out[i] = 0;", "i"),
        ("int i = x + m; out[i] = 0;", "i"),
        ("switch (n) { case 0: int i = x; out[i] = 0; }", "i"),
        ("int i = x; out[sizeof(i)] = 0;", "sizeof(i)"),
        ("out[static_cast<char>(x)] = 0;", "static_cast<char>(x)"),
        ("out[static_cast<std::size_t>(x) * n] = 0;", "x * n"),
    ],
)
def test_what_is_read_through_and_what_is_left_as_written(body: str, read: str) -> None:
    assert _read_through(body) == read


def test_the_refusal_still_reaches_the_user() -> None:
    code, message = _propose(REFUSED["reassigned"], "f")
    assert code is None
    assert "not affine in `x`" in message
