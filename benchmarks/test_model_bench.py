"""Speed of the default embedded model on this machine, and how prompts fill the context.

Figures are recorded in the benchmark JSON (``extra_info``) rather than asserted: they
depend on the machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from regrapht_core.datatypes import EdgeExample
from regrapht_core.errors import ModelError
from regrapht_core.model.embedded import DEFAULT_EMBEDDED, EMBEDDED, embedded_path
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.prompts import NoCode, build_step_prompt, parse_response
from regrapht_core.model.protocol import ChatMessage, Sampling
from regrapht_core.model.resolve import default_cache_dir
from regrapht_core.model.settings import LlamaSettings

ASK = [ChatMessage("user", "Write a CUDA kernel that adds two float arrays element-wise.")]
ANSWER_TOKENS = 1024


def _embedded(name: str) -> Path:
    """The joined GGUF in the user's cache, where ``regrapht`` itself finds it."""
    return embedded_path(EMBEDDED[name], cache_dir=default_cache_dir(os.environ))


@pytest.fixture(scope="module")
def model() -> LlamaCppModel:
    return LlamaCppModel.load(_embedded(DEFAULT_EMBEDDED), LlamaSettings(n_ctx=4096))


def _step_prompt(model: LlamaCppModel) -> list[ChatMessage]:
    prompt = build_step_prompt(
        code="void saxpy(int n, float a, const float* x, float* y) {\n"
        "  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}",
        entry_signature="void saxpy(int n, float a, const float* x, float* y)",
        technique="Parallelize loop",
        description="Map independent loop iterations to CUDA threads.",
        examples=[_long_example(0)],
        budget_tokens=model.context_tokens - ANSWER_TOKENS,
        count_tokens=model.count_tokens,
    )
    return list(prompt.messages)


@pytest.mark.parametrize("prompt", ["short question", "step prompt"])
def test_time_to_first_token(
    benchmark: BenchmarkFixture, model: LlamaCppModel, prompt: str
) -> None:
    """Cold: a new first message each round defeats llama.cpp's prompt-prefix cache."""
    messages = ASK if prompt == "short question" else _step_prompt(model)
    rounds = iter(range(1000))
    firsts: list[float] = []

    def fresh() -> tuple[tuple[list[ChatMessage]], dict[str, object]]:
        nonce = ChatMessage("system", f"Session {next(rounds)}. You write CUDA code.")
        return ([nonce, *messages],), {}

    def first_token(chat: list[ChatMessage]) -> None:
        done = model.generate(chat, Sampling(1, seed=0))
        firsts.append(done.first_token_s or float("nan"))

    benchmark.pedantic(first_token, setup=fresh, rounds=3)  # type: ignore[no-untyped-call]
    benchmark.extra_info["model"] = model.name
    benchmark.extra_info["prompt_tokens"] = sum(model.count_tokens(m.content) for m in messages)
    benchmark.extra_info["first_token_s"] = firsts


def test_decode_tokens_per_second(benchmark: BenchmarkFixture, model: LlamaCppModel) -> None:
    done = benchmark.pedantic(  # type: ignore[no-untyped-call]
        lambda: model.generate(ASK, Sampling(128, temperature=0.7, seed=0)),
        rounds=3,
        warmup_rounds=1,
    )
    benchmark.extra_info["model"] = model.name
    benchmark.extra_info["tokens"] = done.tokens
    benchmark.extra_info["tokens_per_s"] = done.tokens_per_s


def _long_example(i: int) -> EdgeExample:
    body = "\n".join(f"  y[i + {k}] = a * x[i + {k}] + y[i + {k}];" for k in range(16))
    return EdgeExample(
        task=f"unrolled_{i}",
        think="The loop is independent per element; unrolling exposes ILP. " * 10,
        detail="Unrolled by 16 inside a grid-stride loop.",
        before=f"void f{i}(int n, float a, const float* x, float* y) {{\n{body}\n}}",
        after=f"__global__ void k{i}(int n, float a, const float* x, float* y) {{\n{body}\n}}",
    )


@pytest.mark.parametrize("context", [2048, 4096, 8192])
def test_prompt_size_against_context_budget(
    benchmark: BenchmarkFixture, model: LlamaCppModel, context: int
) -> None:
    examples = [_long_example(i) for i in range(8)]
    code = "void saxpy(int n, float a, const float* x, float* y) {\n" + "  y[0] += a;\n" * 80 + "}"
    budget = context - ANSWER_TOKENS
    prompt = benchmark(
        build_step_prompt,
        code=code,
        entry_signature="void saxpy(int n, float a, const float* x, float* y)",
        technique="Loop unrolling",
        description="Unroll the inner loop to expose instruction-level parallelism.",
        examples=examples,
        budget_tokens=budget,
        count_tokens=model.count_tokens,
    )
    rendered = sum(model.count_tokens(m.content) for m in prompt.messages)
    benchmark.extra_info.update(
        context=context,
        budget_tokens=budget,
        prompt_tokens=prompt.prompt_tokens,
        examples_used=prompt.examples_used,
        examples_offered=len(examples),
        fits=prompt.fits,
    )
    assert rendered <= budget


_SCALE = EdgeExample(
    task="scale",
    think="Each element is independent, so one thread per element.",
    detail="Moved the loop body into a kernel; the host copies in, launches and copies out.",
    before="void scale(const float* x, float* y, int n, float a) {\n"
    "  for (int i = 0; i < n; ++i) y[i] = a * x[i];\n}",
    after="__global__ void scale_kernel(const float* x, float* y, int n, float a) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i];\n}\n"
    "void scale(const float* x, float* y, int n, float a) {\n  float *dx, *dy;\n"
    "  cudaMalloc(&dx, n * sizeof(float));\n  cudaMalloc(&dy, n * sizeof(float));\n"
    "  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);\n"
    "  scale_kernel<<<(n + 255) / 256, 256>>>(dx, dy, n, a);\n"
    "  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "  cudaFree(dx);\n  cudaFree(dy);\n}",
)
_LOOPS = {
    "vec_add": ("const float* a, const float* b, float* c, int n", "c[i] = a[i] + b[i];"),
    "saxpy": ("int n, float a, const float* x, float* y", "y[i] = a * x[i] + y[i];"),
    "relu": ("const float* x, float* y, int n", "y[i] = x[i] > 0.0f ? x[i] : 0.0f;"),
    "square": ("const double* x, double* y, int n", "y[i] = x[i] * x[i];"),
}


@pytest.mark.parametrize("name", sorted(EMBEDDED))
def test_step_answer_quality(benchmark: BenchmarkFixture, name: str) -> None:
    """How often an embedded model's answer to a real step prompt is a usable candidate.

    The figures behind the choice of default in docs/models.md.
    """
    try:
        path = _embedded(name)
    except ModelError as exc:
        pytest.skip(str(exc))
    llm = LlamaCppModel.load(path, LlamaSettings(n_ctx=2048))
    outcomes: list[str] = []

    def answer_all() -> None:
        for seed in (0, 1):
            for entry, (params, body) in _LOOPS.items():
                signature = f"void {entry}({params})"
                prompt = build_step_prompt(
                    code=f"{signature} {{\n  for (int i = 0; i < n; ++i) {body}\n}}",
                    entry_signature=signature,
                    technique="Parallelize loop with a CUDA kernel",
                    description="Map independent loop iterations to CUDA threads; the host "
                    "function allocates device memory, copies, launches and copies back.",
                    examples=[_SCALE],
                    budget_tokens=2048 - 512,
                    count_tokens=llm.count_tokens,
                )
                done = llm.generate(prompt.messages, Sampling(400, temperature=0.3, seed=seed))
                parsed = parse_response(done.text, entry_name=entry)
                if isinstance(parsed, NoCode):
                    outcomes.append(parsed.reason)
                elif "__global__" in parsed.code and "<<<" in parsed.code:
                    outcomes.append("kernel")
                else:
                    outcomes.append("candidate without kernel")

    benchmark.pedantic(answer_all, rounds=1)  # type: ignore[no-untyped-call]
    benchmark.extra_info["model"] = llm.name
    benchmark.extra_info["answers"] = len(outcomes)
    usable = [o for o in outcomes if o.startswith(("kernel", "candidate"))]
    benchmark.extra_info["candidates"] = len(usable)
    benchmark.extra_info["with_kernel"] = outcomes.count("kernel")
    benchmark.extra_info["outcomes"] = outcomes
