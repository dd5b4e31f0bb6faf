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


def corpus_task(function: str) -> Task:
    """The corpus file at sizes the CPU emulator runs in seconds."""
    return small_corpus_task(CORPUS / POINTER_TASKS[function], function, "1<<24", "5000")


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
        ("if (x[i] > best) { best = x[i]; arg = i; }", "double", "only 32-bit values"),
        ("if (x[i] > best) { best = x[i]; arg = i + 1; }", "float", "not an arg-reduction"),
        ("if (x[i] > best) { best = x[i]; arg = i; } else { arg = 0; }", "float", "not an arg"),
        ("float d = best - x[i]; if (x[i] > best) { best = x[i]; arg = i; }", "float", "reads"),
        ("if (x[i] > best) { best = 2 * x[i]; arg = i; }", "float", "not an arg-reduction"),
    ],
    ids=["double", "shifted-index", "else", "reads-best", "other-value"],
)
def test_other_loops_are_refused_with_the_reason(body: str, kind: str, reason: str) -> None:
    assert reason in refusal(body, kind)


@requires_nvcc
@pytest.mark.parametrize("function", ["argmax_f32", "lastmax_i32"])
def test_the_candidates_compile_with_nvcc(function: str, tmp_path: Path) -> None:
    compile_cuda(keyed(corpus_task(function)), tmp_path)


@requires_nvcc
def test_the_vector_form_compiles_with_nvcc(tmp_path: Path) -> None:
    code, message = first_step(ARGMIN)
    assert code is not None, message
    compile_cuda(code, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("function", sorted(POINTER_TASKS))
def test_the_candidates_compute_what_the_reference_computes(function: str, tmp_path: Path) -> None:
    task = corpus_task(function)
    assert run_on_cpu(task, keyed(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("function", sorted(POINTER_TASKS))
def test_the_candidates_agree_with_the_reference_on_the_gpu(function: str, tmp_path: Path) -> None:
    task = corpus_task(function)
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
}
"""The corpus's arg-reductions the rewriter takes (docs/rewriters.md quotes the count): the
64-bit ones are refused, and the two-pass ``firstmin`` has two loops."""


def test_it_takes_8_of_the_15_corpus_arg_reductions() -> None:
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
