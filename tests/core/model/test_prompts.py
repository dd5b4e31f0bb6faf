from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.retrieval import rank_step_examples
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.model.prompts import (
    SYSTEM_PROMPT,
    NoCode,
    ParsedCode,
    StepPrompt,
    build_step_prompt,
    defined_functions,
    parse_response,
)
from regrapht_core.model.protocol import approx_token_count

SOURCE = """void vec_add(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}"""
SIGNATURE = "void vec_add(const float* a, const float* b, float* c, int n)"
KERNEL = """__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}"""
HOST = """void vec_add(const float* a, const float* b, float* c, int n) {
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  add_kernel<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaFree(da);
}"""


def example(task: str, size: int = 1) -> EdgeExample:
    return EdgeExample(
        task=task,
        think="Iterations are independent. " * size,
        detail="One thread per element.",
        before=SOURCE,
        after=KERNEL + "\n" + HOST,
    )


TASKS = Path(__file__).parents[3] / "benchmarks" / "tasks"
CONTEXT, ANSWER = 8192, 1536
"""Qwen2.5-Coder-0.5B's context and the answer the model proposer reserves."""
MODEL_EXAMPLES = 2
"""How many examples the model proposer retrieves."""


def real_step_prompt(task: Path, examples: Sequence[EdgeExample]) -> StepPrompt:
    """The step prompt for a benchmark task's code at the model's context."""
    return build_step_prompt(
        code=task.read_text(),
        entry_signature="void f()",
        technique="t",
        description="d",
        examples=examples,
        budget_tokens=CONTEXT - ANSWER,
    )


def build(**overrides: object) -> str:
    arguments: dict[str, object] = {
        "code": SOURCE,
        "entry_signature": SIGNATURE,
        "technique": "Parallelize loop",
        "description": "Map independent iterations to threads.",
        "budget_tokens": 4000,
    }
    arguments.update(overrides)
    prompt = build_step_prompt(**arguments)  # type: ignore[arg-type]
    return prompt.messages[1].content


def test_prompt_states_contract_technique_examples_code_and_feedback() -> None:
    prompt = build_step_prompt(
        code=SOURCE,
        entry_signature=SIGNATURE,
        technique="Parallelize loop",
        description="Map independent iterations to threads.",
        examples=[example("saxpy")],
        feedback="compile error: 'dc' undeclared",
        budget_tokens=4000,
    )
    assert prompt.messages[0].content == SYSTEM_PROMPT
    user = prompt.messages[1].content
    assert "Parallelize loop" in user
    assert "Map independent iterations to threads." in user
    assert SIGNATURE in user
    assert "do not omit" in user.lower()
    assert "Example (saxpy)" in user
    assert "Iterations are independent." in user
    assert user.count(SOURCE) == 2  # the example's before, and the current code
    assert "compile error: 'dc' undeclared" in user
    assert prompt.examples_used == 1
    assert prompt.fits


def test_examples_are_trimmed_to_the_budget_in_retrieval_order() -> None:
    base = build_step_prompt(
        code=SOURCE,
        entry_signature=SIGNATURE,
        technique="t",
        description="d",
        budget_tokens=10_000,
    )
    long_ones = [example(f"task{i}", size=40) for i in range(5)]
    budget = base.prompt_tokens + 400
    prompt = build_step_prompt(
        code=SOURCE,
        entry_signature=SIGNATURE,
        technique="t",
        description="d",
        examples=long_ones,
        budget_tokens=budget,
    )
    assert prompt.prompt_tokens <= budget
    assert 0 < prompt.examples_used < 5
    user = prompt.messages[1].content
    assert "Example (task0)" in user
    assert SOURCE in user.split("Current code:")[1]


def test_reasoning_is_cut_to_its_first_two_sentences() -> None:
    user = build(examples=[example("saxpy", size=40)])
    assert "Why: Iterations are independent. Iterations are independent.\n" in user


BOILERPLATE = [f"// host helper line {i}: unchanged by the technique" for i in range(60)]
TILED = """__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = a[i];
  __syncthreads();
  if (i < n) c[i] = tile[threadIdx.x] + b[i];
}"""


def long_example(task: str = "tiled", changes: int = 1) -> EdgeExample:
    """A kernel between 60 lines of boilerplate, tiled, then ``changes - 1`` more edits
    30 lines apart below it."""
    before = [*BOILERPLATE, KERNEL, *BOILERPLATE, HOST]
    after = [*BOILERPLATE, TILED, *BOILERPLATE, HOST]
    for change in range(1, changes):
        after[60 + 30 * change] = f"// changed host line {change}"
    return EdgeExample(task, "Reuse. Tiles.", "Stage a tile.", "\n".join(before), "\n".join(after))


def test_a_long_example_shows_the_lines_it_changed_as_a_marked_diff() -> None:
    user = build(examples=[long_example()], example_tokens=400)
    assert "Before:" not in user and "// host helper line 30" not in user
    diff = user.split("```diff\n")[1].split("```")[0].splitlines()
    assert diff[0] == "@@ (59 unchanged lines omitted) @@"
    assert diff[2] == " " + KERNEL.splitlines()[0]
    assert diff[3:6] == [
        "+  __shared__ float tile[256];",
        "   int i = blockIdx.x * blockDim.x + threadIdx.x;",
        "-  if (i < n) c[i] = a[i] + b[i];",
    ]
    assert diff[-1] == "@@ (65 unchanged lines omitted) @@"  # 59 + 1 + 65 = the 125 before
    assert "`-` lines are before, `+` lines after" in user


def test_a_diff_over_the_example_budget_loses_whole_hunks_from_the_end() -> None:
    whole = build(examples=[long_example(changes=3)], example_tokens=1000)
    cut = build(examples=[long_example(changes=3)], example_tokens=300)
    whole_lines = whole.split("```diff\n")[1].split("```")[0].splitlines()
    cut_lines = cut.split("```diff\n")[1].split("```")[0].splitlines()
    assert "+// changed host line 2" in whole_lines
    assert "+  __shared__ float tile[256];" in cut_lines
    assert "+// changed host line 2" not in cut_lines
    assert cut_lines[-1] == "@@ (65 lines omitted, 2 more changes among them) @@"
    assert set(cut_lines[:-1]) <= set(whole_lines)  # never a line cut in two


def real_graph() -> ReGraph:
    return load_snapshot(shipped_snapshot()).graph


def test_a_2000_token_edge_example_fits_compactly_beside_a_real_task() -> None:
    tiling = real_graph().examples(PARALLELIZATION, "shared_memory_tiling")
    sgemm = next(e for e in tiling if e.task == "sgemm")
    assert approx_token_count(sgemm.before + sgemm.after) >= 1900
    prompt = real_step_prompt(TASKS / "dense_sgemm.cpp", [sgemm])
    assert prompt.examples_used == 1
    user = prompt.messages[1].content
    assert "```diff" in user and "+  __shared__ float As[kTile][kTile];" in user
    assert prompt.prompt_tokens <= CONTEXT - ANSWER


def edges_and_steps_without_an_edge() -> list[tuple[str, str]]:
    """Every edge of the committed graph, and a step into each of its targets from a node
    with no edge there (the fallback to the technique's other edges)."""
    graph = real_graph()
    targets = sorted({v for _, v in graph.edges})
    return [*graph.edges, *((SEQUENTIAL, v) for v in targets if not graph.has_edge(SEQUENTIAL, v))]


@pytest.mark.parametrize(("node", "technique"), edges_and_steps_without_an_edge())
def test_every_step_into_a_technique_of_the_graph_shows_an_example(
    node: str, technique: str
) -> None:
    task = TASKS / "stencil_jacobi2d.cpp"
    examples = rank_step_examples(
        real_graph(), node, technique, task.read_text(), limit=MODEL_EXAMPLES
    )
    assert real_step_prompt(task, examples).examples_used >= 1


@pytest.mark.parametrize("budget", [400, 500, 800, 1500, 3000])
def test_the_code_rules_and_signature_are_never_cut(budget: int) -> None:
    examples = [long_example(f"e{i}", changes=3) for i in range(3)]
    prompt = build_step_prompt(
        code=SOURCE,
        entry_signature=SIGNATURE,
        technique="t",
        description="d",
        examples=examples,
        budget_tokens=budget,
    )
    user = prompt.messages[1].content
    assert prompt.fits and prompt.prompt_tokens <= budget
    assert f"Current code:\n```cuda\n{SOURCE}\n```" in user
    assert f"exactly this signature: `{SIGNATURE}`" in user
    assert user.rstrip().endswith("- Answer with the code in one ```cuda block.")


def test_prompt_over_budget_says_it_does_not_fit() -> None:
    prompt = build_step_prompt(
        code=SOURCE * 50,
        entry_signature=SIGNATURE,
        technique="t",
        description="d",
        examples=[example("a")],
        budget_tokens=100,
    )
    assert not prompt.fits
    assert prompt.examples_used == 0


def test_no_feedback_section_on_a_first_attempt() -> None:
    assert "previous attempt" not in build()


def test_a_selected_loop_is_named_in_the_rules_and_the_rest_kept_on_the_host() -> None:
    assert "Optimize only" not in build()
    rules = build(loop="top-level loop 2 of 3 (`for (int i = 0; i < n; ++i)`)").split("Rules:")[1]
    assert (
        "- Optimize only the entry function's top-level loop 2 of 3 "
        "(`for (int i = 0; i < n; ++i)`); keep its other loops and code on the host exactly "
        "as written.\n"
    ) in rules


def test_fenced_code_with_prose_around_it() -> None:
    answer = f"Sure! Here is the optimized code:\n```cuda\n{KERNEL}\n{HOST}\n```\nThis is faster."
    result = parse_response(answer, entry_name="vec_add")
    assert isinstance(result, ParsedCode)
    assert result.functions == ("add_kernel", "vec_add")
    assert "Sure" not in result.code
    assert "faster" not in result.code


def test_kernel_and_host_in_separate_fences_are_joined() -> None:
    answer = (
        f"Kernel:\n```cpp\n{KERNEL}\n```\nHost side:\n```\n{HOST}\n```\n```bash\nnvcc x.cu\n```"
    )
    result = parse_response(answer, entry_name="vec_add")
    assert isinstance(result, ParsedCode)
    assert result.functions == ("add_kernel", "vec_add")
    assert "nvcc" not in result.code


def test_echoed_input_then_rewrite_takes_the_rewrite() -> None:
    answer = f"Original:\n```c\n{SOURCE}\n```\nOptimized:\n```cuda\n{KERNEL}\n{HOST}\n```"
    result = parse_response(answer, entry_name="vec_add")
    assert isinstance(result, ParsedCode)
    assert result.code.count("void vec_add") == 1
    assert "cudaMalloc" in result.code


def test_bare_code_with_junk_between_functions() -> None:
    answer = (
        f"Here you go.\n#include <cuda_runtime.h>\n{KERNEL}\nNow the host function:\n{HOST}\nDone!"
    )
    result = parse_response(answer, entry_name="vec_add")
    assert isinstance(result, ParsedCode)
    assert result.code.startswith("#include <cuda_runtime.h>")
    assert "Now the host" not in result.code
    assert "Done" not in result.code
    assert result.functions == ("add_kernel", "vec_add")


def test_unterminated_fence_with_complete_code_is_accepted() -> None:
    result = parse_response(f"```cuda\n{KERNEL}\n{HOST}\n", entry_name="vec_add")
    assert isinstance(result, ParsedCode)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("I cannot help with that.", "no C/C++/CUDA code"),
        ("```bash\nnvcc -O3 x.cu\n```", "no C/C++/CUDA code"),
        (f"```cuda\n{HOST[:-3]}", "truncated"),
        (f"```cuda\n{KERNEL}\n```", "entry function 'vec_add'"),
        ("```cuda\n#include <cstdio>\nint x = 3;\n```", "defines no function"),
        (
            "```cuda\nvoid vec_add(const float* a, const float* b, float* c, int n) {\n"
            "  // ... rest of the code unchanged\n}\n```",
            "omits parts",
        ),
        ("<|im_end|><|im_start|>assistant\n}}}}{{", "no C/C++/CUDA code"),
    ],
)
def test_unusable_answers_are_no_code_values(answer: str, reason: str) -> None:
    result = parse_response(answer, entry_name="vec_add")
    assert isinstance(result, NoCode)
    assert reason in result.reason


def test_braces_in_strings_and_comments_do_not_count() -> None:
    code = 'void vec_add(int n) {\n  printf("{ %d\\n", n); // }}\n  /* { */\n}'
    result = parse_response(f"```cuda\n{code}\n```", entry_name="vec_add")
    assert isinstance(result, ParsedCode)


def test_defined_functions_skip_control_flow_and_calls() -> None:
    code = (
        "int f(int x) { if (x) { return g(x); } for (;;) {} while (1) {} }\n"
        "template <int N>\n__device__ float h(const float* p) { return p[0]; }"
    )
    assert defined_functions(code) == ("f", "h")


SEQUENTIAL_WITH_DEAD_KERNEL = """```cuda
__global__ void scale_kernel(int n, float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
void scale(int n, float* x) {
  for (int i = 0; i < n; ++i) x[i] *= 2.0f;  // scale_kernel<<<1, 1>>> would do it
}
```"""


def test_a_host_entry_that_launches_nothing_is_no_code_that_keeps_its_kernels() -> None:
    parsed = parse_response(SEQUENTIAL_WITH_DEAD_KERNEL, entry_name="scale", host_entry=True)
    assert isinstance(parsed, NoCode)
    assert parsed.reason == "the code launches no kernel: the work stays on the host"
    assert "__global__ void scale_kernel" in parsed.code


@pytest.mark.parametrize(
    "call",
    [
        "scale_kernel<<<(n + 255) / 256, 256>>>(n, x);",
        "cudaLaunchKernel((const void*)scale_kernel, 1, 1, nullptr, 0, 0);",
        "thrust::transform(thrust::device, x, x + n, x, twice());",
    ],
    ids=["chevrons", "launch-api", "thrust"],
)
def test_any_way_of_putting_work_on_the_gpu_counts_as_a_launch(call: str) -> None:
    answer = SEQUENTIAL_WITH_DEAD_KERNEL.replace("for (int i = 0; i < n; ++i) x[i] *= 2.0f;", call)
    parsed = parse_response(answer, entry_name="scale", host_entry=True)
    assert isinstance(parsed, ParsedCode), parsed


def test_a_kernel_tasks_entry_may_be_a_kernel() -> None:
    """``host_entry=False``: a kernel→kernel task, whose entry is the kernel itself."""
    answer = "```cuda\n__global__ void k(int n, float* x) { x[0] = n; }\n```"
    assert isinstance(parse_response(answer, entry_name="k"), ParsedCode)
    refused = parse_response(answer, entry_name="k", host_entry=True)
    assert isinstance(refused, NoCode) and "is a kernel, not a host function" in refused.reason
