"""Whatever a model writes, its proposer returns a proposal: code, or a reason there is none.

A model's answer is untrusted input. At acd36c8 one answer (two overloads of a kernel, the
first taking a `blockSize` the entry lacks) raised KeyError out of the proposer and ended
an H200 bench process; a user's job would have failed the same way. The answers here are
put together from the pieces small models write: fenced or bare code, kernels under the
entry's name or another, overloads, templates, prototypes, a host entry or a `main`,
helpers, includes, macros, prose, and answers cut off at the token limit.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.task import Task
from regrapht_core.model.protocol import FinishReason
from regrapht_core.optimize.proposers import HoleProposer, ModelProposer, OneShotProposer
from tests.core.optimize.test_proposers import ScriptedModel, graph_with_example
from tests.core.rewrite import cases
from tests.core.rewrite.support import first_code

TASKS = (cases.SAXPY, cases.VECTOR_ADD, cases.HISTOGRAM)

_PARAMS = (
    "int n",
    "float a",
    "const float* x",
    "float* y",
    "const float *a",
    "const float *b",
    "float *c",
    "int blockSize",
    "int N",
    "float* __restrict__ out",
    "const int* x",
    "unsigned int* h",
    "T* data",
)
_NAMES = ("saxpy", "saxpy_kernel", "vector_add", "vector_add_kernel", "histogram", "k", "kernel")
_BODIES = (
    "int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];",
    "int i = blockIdx.x * blockSize + threadIdx.x;\n  if (i < N) c[i] = a[i] + b[i];",
    "for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&h[x[i]], 1);",
    "__shared__ float s[256];\n  s[threadIdx.x] = 0;\n  __syncthreads();",
    "",
    "helper(n);",
)


@st.composite
def _kernel(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_NAMES))
    params = ", ".join(draw(st.lists(st.sampled_from(_PARAMS), max_size=5)))
    head = draw(st.sampled_from(("", "template <int B>\n", "template <typename T>\n")))
    qualifier = draw(st.sampled_from(("__global__", "__global__ __launch_bounds__(256)")))
    if draw(st.booleans()):
        return f"{head}{qualifier} void {name}({params});"
    return f"{head}{qualifier} void {name}({params}) {{\n  {draw(st.sampled_from(_BODIES))}\n}}"


_PIECES = st.one_of(
    _kernel(),
    st.sampled_from(
        (
            "#include <cuda_runtime.h>",
            "#include <iostream>",
            '#include "cuda_check.h"',
            "#define BLOCK 256",
            "__device__ float helper(float v) { return v * 2; }",
            "int main() { saxpy(1, 2.0f, nullptr, nullptr); return 0; }",
            "void saxpy(int n, float a, const float* x, float* y) {\n"
            "  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);\n}",
            "void vector_add(const float *a, const float *b, float *c, int n) {\n"
            "  k<<<n / 256, 256>>>(n, c);\n}",
            "void histogram(int n, const int* x, unsigned int* h) {}",
            "Here is the optimized code:",
            "This kernel uses one thread per element.",
            "}",
            "{",
            "y[i] = a * x[i] + y[i];",
            "atomicAdd(&h[x[i]], 1u);",
            "for (int i = 0; i < n; ++i) {",
            "if (i >= n) return;",
            "__syncthreads();",
        )
    ),
)


@st.composite
def _answer(draw: st.DrawFn) -> tuple[str, bool]:
    """An answer's text, and whether it was cut off at the token limit."""
    code = "\n".join(draw(st.lists(_PIECES, min_size=1, max_size=6)))
    fence = draw(st.sampled_from(("```cuda\n{}\n```", "```cpp\n{}\n```", "```\n{}\n```", "{}")))
    text = fence.format(code)
    cut = draw(st.booleans())
    if cut:
        text = text[: draw(st.integers(min_value=1, max_value=len(text)))]
    return text, cut


_STEPS = ("first step", "later step", "one shot", "loop body")
"""Where a model answers: the step from the sequential code (its kernels launched for it
when its host side is wrong), a step from CUDA code, a one-shot baseline, a scaffold's hole."""


def _proposal(task: Task, step: str, model: ScriptedModel) -> Proposal:
    graph = graph_with_example()
    if step == "first step":
        request = ProposeRequest(task, "sequential", "parallelization", task.source)
        return ModelProposer(model, graph)(request)
    if step == "later step":
        code = first_code(task)
        return ModelProposer(model, graph)(
            ProposeRequest(task, "parallelization", "loop_unrolling", code)
        )
    if step == "one shot":
        request = ProposeRequest(task, "sequential", "cuda_port", task.source)
        return OneShotProposer(model, graph, style="plain")(request)
    request = ProposeRequest(task, "sequential", "parallelization", task.source)
    return HoleProposer(model, graph)(request)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=_answer(), task=st.sampled_from(TASKS), step=st.sampled_from(_STEPS))
def test_any_answer_becomes_a_proposal(answer: tuple[str, bool], task: Task, step: str) -> None:
    text, cut = answer
    model = ScriptedModel(text, FinishReason.LENGTH if cut else FinishReason.STOP)
    proposal = _proposal(task, step, model)
    assert isinstance(proposal, Proposal)
    assert (proposal.code is None) == bool(proposal.message), "code, or why there is none"
