"""The arg-reduction rewriter: the index of the smallest or largest element (first or last on
ties) becomes one unsigned min-reduction of keys packing the element's order above its index."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.arg_reduction import ArgReduction
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    small_corpus_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus" / "arg_reductions"
POINTER_TASKS = {
    "argmax_f32": "arg_reductions_argmax_f32_ptr.cpp",  # strict >: the first on ties
    "argmax_i32": "arg_reductions_argmax_i32_ptr.cpp",  # ints in [-100, 100]: many ties
    "argmaxabs_f32": "arg_reductions_argmaxabs_f32_ptr.cpp",  # a local computed per element
    "argmaxabs_i32": "arg_reductions_argmaxabs_i32_ptr.cpp",
    "lastmax_f32": "arg_reductions_lastmax_f32_ptr.cpp",  # >=: the last on ties
    "lastmax_i32": "arg_reductions_lastmax_i32_ptr.cpp",
}
WIDE_TASKS = {  # 64-bit values: two passes
    "argmax_f64": "arg_reductions_argmax_f64_vec.cpp",
    "argmaxabs_f64": "arg_reductions_argmaxabs_f64_vec.cpp",
    "argmin_f64": "arg_reductions_argmin_f64_ptr.cpp",  # <=: the last on ties, and the value
    "lastmax_f64": "arg_reductions_lastmax_f64_vec.cpp",
}
TASKS = POINTER_TASKS | WIDE_TASKS
RUN = sorted({*POINTER_TASKS, "argmin_f64"})
"""The ones the test harness calls (pointer arguments)."""


def corpus_task(function: str) -> Task:
    """The corpus file at sizes the CPU emulator runs in seconds."""
    return small_corpus_task(CORPUS / TASKS[function], function, "1<<24", "5000")


def wide_ties(compare: str, start: str = "best = x[0]; int arg = 0; int i = 1") -> Task:
    """64-bit integers in [-100, 100]: many ties, so the first or last one matters."""
    first, declare, loop_start = start.split("; ")
    return extract_task(
        "// regrapht: n = 5000; x[n] in ~ int(-100, 100)\n"
        "int arg(int n, const long long* x) {\n"
        f"  long long {first};\n  {declare};\n"
        f"  for ({loop_start}; i < n; ++i) {{\n"
        f"    if (x[i] {compare} best) {{ best = x[i]; arg = i; }}\n  }}\n"
        "  return arg;\n}\n",
        "cpp",
        function="arg",
        validate=False,
    )


WIDE_TIES = {
    "first max": wide_ties(">"),
    "last max": wide_ties(">="),
    "first min": wide_ties("<"),
    "last min, from a sentinel": wide_ties(
        "<=", "best = 9223372036854775807LL; int arg = -1; int i = 0"
    ),
}


ARGMIN = extract_task(
    (CORPUS.parents[1] / "cxx" / "everyday" / "c01.cpp").read_text(),
    "cpp",
    function="argmin",
    validate=False,
)
"""As people write it: the best index only, compared through the vector."""


def keyed(task: Task) -> str:
    (candidate,) = ArgReduction().apply(task.source, RewriteContext(task))
    return candidate.code


def refusal(body: str, kind: str = "float") -> str:
    task = extract_task(
        f"// regrapht: n = 1000; x[n] in\nint arg(int n, const {kind}* x) {{\n"
        f"  {kind} best = x[0];\n  int arg = 0;\n"
        f"  for (int i = 1; i < n; ++i) {{ {body} }}\n"
        "  return arg;\n}\n",
        "cpp",
        function="arg",
    )
    return ArgReduction().applies(task.source, RewriteContext(task)).reason


def test_an_argmax_becomes_a_min_reduction_of_keys() -> None:
    code = keyed(corpus_task("argmax_f32"))
    kernel = code[: code.index("int argmax_f32(")]
    assert "__host__ __device__ static inline unsigned long long order_key(float v" in kernel
    assert "atomicMin(" in kernel and "if (k < arg_key) arg_key = k;" in kernel
    assert "best = order_value(arg_key);" in code  # the value comes back from the key too


def test_the_index_only_form_compares_through_the_array() -> None:
    code, message = first_step(ARGMIN)
    assert code is not None, message
    assert "const bool ran = (1) < v_size;" in code, "v[best] is read only if the loop runs"
    assert "best_key = ran ? order_key(v[best], static_cast<unsigned int>(best)) : ~0ull;" in code
    assert "if (ran) best = static_cast<std::size_t>(best_key & 0xffffffffull);" in code
    assert "order_value" not in code, "no value to give back"


@pytest.mark.parametrize(
    ("body", "kind", "reason"),
    [
        ("if (x[i] > best) { best = x[i]; arg = i; }", "short", "only 32-bit and 64"),
        ("if (x[i] > best) { best = x[i]; arg = i + 1; }", "float", "not an arg-reduction"),
        ("if (x[i] > best) { best = x[i]; arg = i; } else { arg = 0; }", "float", "not an arg"),
        ("float d = best - x[i]; if (x[i] > best) { best = x[i]; arg = i; }", "float", "reads"),
        ("if (x[i] > best) { best = 2 * x[i]; arg = i; }", "float", "not an arg-reduction"),
    ],
    ids=["short", "shifted-index", "else", "reads-best", "other-value"],
)
def test_other_loops_are_refused_with_the_reason(body: str, kind: str, reason: str) -> None:
    assert reason in refusal(body, kind)


@requires_nvcc
@pytest.mark.parametrize("function", ["argmax_f32", "lastmax_i32", "argmaxabs_f64", "lastmax_f64"])
def test_the_candidates_compile_with_nvcc(function: str, tmp_path: Path) -> None:
    compile_cuda(keyed(corpus_task(function)), tmp_path)


@requires_nvcc
def test_the_vector_form_compiles_with_nvcc(tmp_path: Path) -> None:
    code, message = first_step(ARGMIN)
    assert code is not None, message
    compile_cuda(code, tmp_path)


def test_a_64_bit_value_takes_a_pass_for_its_key_and_one_for_its_index() -> None:
    code = keyed(corpus_task("argmin_f64"))
    kernels = code[: code.index("void argmin_f64(")]
    assert kernels.count("atomicMin(") == 2
    assert "order_key(x[i]) == best_key ? ~(static_cast<unsigned long long>(i) + 1ull)" in code
    assert "if (position != ~0ull) arg = static_cast<int>(~position - 1ull);" in code
    assert "best = order_value(best_key);" in code
    first = keyed(WIDE_TIES["first max"])
    assert "if (position != ~0ull && !(order_key(best) == best_key)) arg" in first, (
        "a starting value equal to the best keeps its index: the loop saw it first"
    )


@pytest.mark.slow
@pytest.mark.parametrize("function", RUN)
def test_the_candidates_compute_what_the_reference_computes(function: str, tmp_path: Path) -> None:
    task = corpus_task(function)
    assert run_on_cpu(task, keyed(task), tmp_path) == "PASS"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WIDE_TIES))
def test_64_bit_ties_go_where_the_loop_puts_them(name: str, tmp_path: Path) -> None:
    task = WIDE_TIES[name]
    assert run_on_cpu(task, keyed(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("function", RUN)
def test_the_candidates_agree_with_the_reference_on_the_gpu(function: str, tmp_path: Path) -> None:
    task = corpus_task(function)
    assert run_on_gpu(task, keyed(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("name", sorted(WIDE_TIES))
def test_64_bit_ties_go_where_the_loop_puts_them_on_the_gpu(name: str, tmp_path: Path) -> None:
    task = WIDE_TIES[name]
    assert run_on_gpu(task, keyed(task), tmp_path) == "PASS"


APPLIES = {
    "argmax_f32_ptr",
    "argmax_i32_ptr",
    "argmaxabs_f32_ptr",
    "argmaxabs_i32_ptr",
    "argmin_f32_vec",
    "argmin_i32_vec",
    "lastmax_f32_ptr",
    "lastmax_i32_ptr",
    "argmax_f64_vec",
    "argmaxabs_f64_vec",
    "argmin_f64_ptr",
    "lastmax_f64_vec",
}
"""The corpus's arg-reductions the rewriter takes (docs/rewriters.md quotes the count): the
two-pass ``firstmin`` has two loops."""


def test_it_takes_12_of_the_15_corpus_arg_reductions() -> None:
    taken = set()
    for path in sorted(CORPUS.glob("*.cpp")):
        source = path.read_text()
        after = source[source.index("regrapht:") :].split("\n", 1)[1]  # the function's line
        entry = after.split("(", 1)[0].split()[-1]
        task = extract_task(source, "cpp", function=entry, validate=False)
        if ArgReduction().applies(task.source, RewriteContext(task)):
            taken.add(path.stem.removeprefix("arg_reductions_"))
    assert len(list(CORPUS.glob("*.cpp"))) == 15
    assert taken == APPLIES
