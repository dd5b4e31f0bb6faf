"""The step prompt and the reading of its answer, kept together so they cannot drift.

The model is small (135M to 1B parameters): it copies the shape of what it is shown, so the
prompt shows verified before/after examples of the technique and states the contract
plainly, and the parser is forgiving about what surrounds the code but strict about the
code itself (same entry function, complete, balanced). An answer without usable code is
a ``NoCode`` value the search scores like any failed candidate, never an exception.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from regrapht_core.datatypes import EdgeExample
from regrapht_core.model.evidence import bare
from regrapht_core.model.protocol import ChatMessage, approx_token_count
from regrapht_core.model.repair import repair

__all__ = [
    "EXAMPLE_TOKENS",
    "SYSTEM_PROMPT",
    "NoCode",
    "ParsedCode",
    "StepPrompt",
    "answer_code",
    "build_hole_prompt",
    "build_step_prompt",
    "defined_functions",
    "parse_response",
    "parse_statements",
]

SYSTEM_PROMPT = (
    "You are an expert CUDA performance engineer. You rewrite C/C++ and CUDA code to run "
    "faster on an NVIDIA GPU, applying exactly the optimization technique you are asked "
    "for, and you answer with complete, compilable CUDA source in one ```cuda code block."
)

_FENCE = re.compile(r"```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CODE_TAGS = frozenset({"", "c", "cpp", "c++", "cc", "cxx", "cu", "cuda", "h", "hpp", "cuh"})
_FUNC_DEF = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^;{}()]|\([^;{}()]*\))*\)\s*(?:const\s*)?\{")
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof"})
_CODE_START = re.compile(
    r"^\s*(#\s*(include|define|pragma|if|ifdef|ifndef)\b|template\s*<|__global__|__device__"
    r"|__host__|extern\b|static\b|inline\b|typedef\b|struct\b|using\b|namespace\b"
    r"|(const\s+)?[A-Za-z_][\w:<>]*[\s*&]+[A-Za-z_]\w*\s*\()"
)
_ELISION = re.compile(
    r"^\s*(\.\.\.|(//|/\*)\s*\.\.\.|(//|/\*).*\b(rest of|remaining|unchanged|same as (before"
    r"|above)|existing code|your code here)\b)",
    re.IGNORECASE | re.MULTILINE,
)
_LAUNCH = re.compile(r"<<<|\bcudaLaunch\w*\s*\(|\b(?:thrust|cub)::|\bcublas\w*\s*\(")
"""What puts work on the GPU in code: a launch, the launch API, Thrust, CUB or cuBLAS. The
0.5B model often answers with the sequential loop unchanged beside kernels copied from the
examples that nothing launches: the verifier rejects that (``no_gpu_work``) after a build
and a run, and the kernels may still be worth launching (``rewrite.scaffold.launch_kernels``)."""


@dataclass(frozen=True, slots=True)
class StepPrompt:
    messages: tuple[ChatMessage, ...]
    prompt_tokens: int
    examples_used: int
    """How many of the retrieved examples fit the budget (full or compact)."""
    fits: bool
    """False when even the prompt without examples exceeds the budget: do not send it."""


EXAMPLE_TOKENS = 2000
"""The most one example may take (a diff over it loses whole hunks): two fit an 8,192-token
context beside a task's CUDA code and the answer's 1,536 tokens, and the largest single
change in the shipped graph (a kernel rewritten whole, ~1,400 tokens) still fits."""


@dataclass(frozen=True, slots=True)
class ParsedCode:
    code: str
    functions: tuple[str, ...]
    """Names of the functions the code defines, in order."""
    fixes: tuple[str, ...] = ()
    """What :func:`~regrapht_core.model.repair.repair` changed in the answer's code."""


@dataclass(frozen=True, slots=True)
class NoCode:
    reason: str
    code: str = ""
    """The answer's (repaired) code when its only fault is its host side (no entry function,
    a kernel in its place, an entry that launches nothing): a caller that can write the host
    side around its kernels may still use it."""


def build_step_prompt(
    *,
    code: str,
    entry_signature: str,
    technique: str,
    description: str,
    examples: Sequence[EdgeExample] = (),
    feedback: str | None = None,
    loop: str | None = None,
    budget_tokens: int,
    count_tokens: Callable[[str], int] = approx_token_count,
    example_tokens: int = EXAMPLE_TOKENS,
) -> StepPrompt:
    """Build the messages for one search step.

    ``loop`` names the one loop of the entry the user asked to optimize (``top-level loop 2
    of 3 (`for (...)`)``); the rules then keep the rest of the entry on the host.
    ``budget_tokens`` is what the prompt may use: the model's context minus the tokens kept
    for the answer. Examples come in retrieval order and are added until the budget is
    used; each in the first of its forms (:func:`_example_forms`) that takes at most
    ``example_tokens`` and fits what is left, else dropped, so the required parts (code,
    rules, signature) are never cut and one long example cannot crowd out the next.
    """
    head = (
        f"Apply the CUDA optimization technique **{technique}** to the code below.\n"
        f"Technique: {description.strip()}\n"
    )
    only = (
        [
            f"- Optimize only the entry function's {loop.strip()}; keep its other loops and "
            "code on the host exactly as written."
        ]
        if loop
        else []
    )
    rules = [
        f"- Keep the entry function with exactly this signature: `{entry_signature.strip()}`",
        "- It must still compute the same results; it allocates, copies and frees any "
        "device memory it needs.",
        *only,
        "- Write the full code: every kernel, helper and the entry function. Do not omit "
        "anything and do not write placeholders such as `...`.",
        "- Use only the CUDA runtime API and the C++ standard library. Define every macro, "
        "constant and helper you use (the examples' CUDA_CHECK, DeviceBuffer or kBlockSize "
        "are not available); no `main` function.",
        "- Answer with the code in one ```cuda block.",
    ]
    contract = "Rules:\n" + "\n".join(rules)
    tail = f"Current code:\n```cuda\n{code.strip()}\n```\n"
    if feedback:
        tail += (
            f"\nYour previous attempt failed verification. Fix this problem:\n{feedback.strip()}\n"
        )
    tail += "\n" + contract

    def total(body: str) -> int:
        return count_tokens(SYSTEM_PROMPT) + count_tokens(body)

    fits = total(_assemble(head, [], tail)) <= budget_tokens
    shown: list[str] = []

    def room(text: str) -> bool:
        """``text`` is short enough and fits beside the examples already shown."""
        return count_tokens(text) <= example_tokens and (
            total(_assemble(head, [*shown, text], tail)) <= budget_tokens
        )

    for example in examples if fits else ():
        text = next(filter(room, _example_forms(example)), None)
        if text is not None:
            shown.append(text)
    body = _assemble(head, shown, tail)
    messages = (ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", body))
    return StepPrompt(messages, total(body), len(shown), fits)


_HOLE_SYSTEM = (
    "You are an expert CUDA engineer. You write exactly the code you are asked for, no more, "
    "in one ```cuda code block."
)


def build_hole_prompt(
    *,
    loop: str,
    var: str,
    feedback: str | None = None,
    budget_tokens: int,
    count_tokens: Callable[[str], int] = approx_token_count,
) -> StepPrompt:
    """Ask for the body of one iteration only: the scaffold around it is already written.

    A few statements is what a small model can get right; the rules name the one judgement
    the rewriter could not make (which updates other iterations share, so need atomics).
    """
    body = (
        f"A CUDA kernel runs the body of this sequential loop once for every value of `{var}`, "
        "in parallel threads, all at the same time:\n"
        f"```cuda\n{loop.strip()}\n```\n"
        f"Rewrite the loop body for one thread that handles one value of `{var}`.\n"
        "Rules:\n"
        "- Iterations run concurrently: where different iterations update the same element "
        "(for example `h[x[i]] += 1`), use CUDA atomics such as `atomicAdd`, `atomicMin` "
        "or `atomicMax`.\n"
        "- Keep what every other statement computes.\n"
        f"- Do not write a loop over `{var}`, a kernel or a function: answer with the body's "
        "statements only, in one ```cuda block.\n"
    )
    if feedback:
        body += (
            f"\nYour previous attempt failed verification. Fix this problem:\n{feedback.strip()}\n"
        )
    messages = (ChatMessage("system", _HOLE_SYSTEM), ChatMessage("user", body))
    tokens = count_tokens(_HOLE_SYSTEM) + count_tokens(body)
    return StepPrompt(messages, tokens, 0, tokens <= budget_tokens)


def parse_statements(text: str) -> str | NoCode:
    """The statements of an answer to :func:`build_hole_prompt`: its first code block, or
    the whole answer when it has none."""
    blocks = [body for tag, body in _FENCE.findall(text) if tag.lower() in _CODE_TAGS]
    code = (blocks[0] if blocks else text).strip()
    if not code:
        return NoCode("the answer contains no statements")
    if _brace_balance(code) != 0:
        return NoCode("the statements' braces do not balance")
    return code


def _assemble(head: str, shown: Sequence[str], tail: str) -> str:
    """The user message. The examples are not called "of this technique": where the graph
    has none of it, retrieval shows the nearest steps of other techniques."""
    if not shown:
        return head + "\n" + tail
    return head + "\nVerified examples:\n\n" + "\n".join(shown) + "\n" + tail


def _example_forms(example: EdgeExample) -> Iterator[str]:
    """The renderings of an example, most complete first, made as they are asked for.

    The whole before/after pair is the shape the answer should have, so it comes first
    where it is about as short as the diff: a step that rewrote most of the code (the
    sequential loop into a CUDA file). Otherwise the lines the technique changed, as a
    diff without the host boilerplate around them, then fewer of its changes (whole
    hunks, from the end). An example that changed nothing has nothing to show.
    """
    diff = _diff(example.before, example.after)
    if diff.changed_lines > (1 - _DIFF_SAVING) * diff.pair_lines:
        yield _format_example(example)
    for count in range(len(diff.hunks), 0, -1):
        yield _format_diff(example, diff, count)


_DIFF_SAVING = 0.25
"""The diff stands in for the whole pair only where it saves at least this share of lines."""


def _format_example(example: EdgeExample) -> str:
    return (
        f"{_example_head(example)}"
        f"Before:\n```cuda\n{example.before.strip()}\n```\n"
        f"After:\n```cuda\n{example.after.strip()}\n```\n"
    )


def _example_head(example: EdgeExample) -> str:
    """The example's name and the gist of its reasoning: a sentence or two each, so the
    prompt's tokens go to code, which the model follows, rather than to prose."""
    why = f"Why: {_gist(example.think)}\n" if example.think.strip() else ""
    what = f"What changed: {_gist(example.detail)}\n" if example.detail.strip() else ""
    return f"Example ({example.task}):\n{why}{what}"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(_])")
_GIST_SENTENCES = 2


def _gist(text: str) -> str:
    return " ".join(_SENTENCE_END.split(" ".join(text.split()))[:_GIST_SENTENCES])


_DIFF_CONTEXT = 2
"""Unchanged lines kept on each side of a change: enough to show where it goes."""


@dataclass(frozen=True, slots=True)
class _Hunk:
    start: int
    """Index of the hunk's first line in the ``before`` code."""
    end: int
    """Index just past its last ``before`` line."""
    lines: tuple[str, ...]
    """Diff lines: `` `` unchanged, ``-`` before only, ``+`` after only."""


@dataclass(frozen=True, slots=True)
class _Diff:
    before_lines: int
    pair_lines: int
    """Lines of the whole before/after pair."""
    hunks: tuple[_Hunk, ...]

    @property
    def changed_lines(self) -> int:
        return sum(len(hunk.lines) for hunk in self.hunks)


def _diff(before: str, after: str) -> _Diff:
    """The changes that make ``after`` of ``before``, as unified-diff hunks.

    Hunks closer than ``_DIFF_CONTEXT`` lines are joined: a marker for the few lines
    between them would cost as much as the lines and break the code the model reads.
    """
    old, new = before.strip().splitlines(), after.strip().splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    hunks: list[_Hunk] = []
    for group in matcher.get_grouped_opcodes(_DIFF_CONTEXT):
        hunk = _Hunk(group[0][1], group[-1][2], tuple(_diff_lines(group, old, new)))
        if hunks and hunk.start - hunks[-1].end <= _DIFF_CONTEXT:
            last = hunks.pop()
            between = [" " + line for line in old[last.end : hunk.start]]
            hunk = _Hunk(last.start, hunk.end, (*last.lines, *between, *hunk.lines))
        hunks.append(hunk)
    return _Diff(len(old), len(old) + len(new), tuple(hunks))


def _diff_lines(
    group: Sequence[tuple[str, int, int, int, int]], old: Sequence[str], new: Sequence[str]
) -> Iterator[str]:
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            yield from (" " + line for line in old[i1:i2])
        else:
            yield from ("-" + line for line in old[i1:i2])
            yield from ("+" + line for line in new[j1:j2])


def _format_diff(example: EdgeExample, diff: _Diff, count: int) -> str:
    """The first ``count`` hunks as one unified diff, every line left out counted in a
    marker (with the changes cut at the end, to fit), so it never passes for whole code."""
    shown: list[str] = []
    seen = 0
    for hunk in diff.hunks[:count]:
        shown += [_omitted(hunk.start - seen), *hunk.lines]
        seen = hunk.end
    cut = len(diff.hunks) - count
    more = f", {cut} more change{'s' if cut > 1 else ''} among them" if cut else ""
    shown.append(_omitted(diff.before_lines - seen, more))
    body = "\n".join(line for line in shown if line)
    return (
        f"{_example_head(example)}"
        "The lines it changed, as a diff: `-` lines are before, `+` lines after:\n"
        f"```diff\n{body}\n```\n"
    )


def _omitted(count: int, more: str = "") -> str:
    if not count:
        return ""
    kind = "" if more else "unchanged "
    return f"@@ ({count} {kind}line{'s' if count > 1 else ''} omitted{more}) @@"


def parse_response(
    text: str, *, entry_name: str | None = None, truncated: bool = False, host_entry: bool = False
) -> ParsedCode | NoCode:
    """Extract the candidate source from a model answer.

    Fenced blocks win over bare code. When several blocks define the entry function (the
    model echoed the input, then rewrote it) the last one is taken, with the other blocks
    that add functions it lacks (kernels or helpers written separately). The syntax slips
    small models make are repaired before the checks (``truncated``: the answer hit its
    token limit, so a missing last brace is where it was cut, not a slip).

    ``host_entry``: the entry is a host function that must put the work on the GPU (a C/C++
    loop's task); ``False`` for a kernel→kernel task, whose entry is the kernel itself.
    """
    if not text.strip():
        return NoCode("the model returned an empty answer")
    code = answer_code(text, entry_name)
    if not code.strip():
        return NoCode("the answer contains no C/C++/CUDA code")
    repaired = repair(code, entry_name=entry_name, truncated=truncated)
    code = repaired.code
    depth = _brace_balance(code)
    if depth != 0:
        return NoCode(
            "the code's braces do not balance: the answer looks truncated"
            if depth > 0
            else "the code's braces do not balance"
        )
    if _ELISION.search(code):
        return NoCode("the code omits parts (placeholder such as `...` or 'rest unchanged')")
    functions = defined_functions(code)
    if not functions:
        return NoCode("the code defines no function")
    if entry_name is not None and entry_name not in functions:
        return NoCode(f"the code does not define the entry function {entry_name!r}", code)
    if host_entry and entry_name is not None:
        if _kernel_named(code, entry_name):
            reason = f"the entry function {entry_name!r} is a kernel, not a host function"
            return NoCode(reason, code)
        if not _LAUNCH.search(bare(code)):
            return NoCode("the code launches no kernel: the work stays on the host", code)
    return ParsedCode(code.strip() + "\n", functions, repaired.fixes)


def defined_functions(code: str) -> tuple[str, ...]:
    """Names of functions with a body in ``code`` (comments and strings ignored)."""
    text = bare(code)
    names = [m.group(1) for m in _FUNC_DEF.finditer(text) if m.group(1) not in _NOT_FUNCTIONS]
    return tuple(dict.fromkeys(names))


def _kernel_named(code: str, name: str) -> bool:
    """``code`` defines ``name`` as a ``__global__`` kernel (the host cannot call it)."""
    text = bare(code)
    return re.search(rf"__global__[^;{{}}()]*\b{re.escape(name)}\s*\(", text) is not None


def answer_code(text: str, entry_name: str | None = None) -> str:
    """The code of an answer as the model wrote it, before any repair: its code blocks
    combined (``parse_response`` says how), else its bare code without the prose."""
    blocks = [
        body for tag, body in _FENCE.findall(text) if tag.lower() in _CODE_TAGS and body.strip()
    ]
    return _combine(blocks, entry_name) if blocks else _bare_code(text)


def _combine(blocks: list[str], entry_name: str | None) -> str:
    if entry_name is None:
        with_funcs = [b for b in blocks if defined_functions(b)]
        return "\n".join(with_funcs or blocks)
    defining = [b for b in blocks if entry_name in defined_functions(b)]
    if not defining:
        return "\n".join(blocks)
    chosen = defining[-1]
    have = set(defined_functions(chosen))
    extra: list[str] = []
    for block in blocks:
        if block is chosen or block in defining:
            continue
        new = set(defined_functions(block)) - have
        if new:
            extra.append(block)
            have |= new
    return "\n".join([*extra, chosen])


def _bare_code(text: str) -> str:
    """Code segments of an unfenced answer, prose lines between them dropped."""
    lines = text.splitlines()
    kept: list[str] = []
    i = 0
    while i < len(lines):
        if not _CODE_START.match(lines[i]):
            i += 1
            continue
        depth = 0
        opened = False
        start = i
        while i < len(lines):
            depth += _brace_balance(lines[i])
            opened = opened or "{" in lines[i]
            i += 1
            stripped = lines[i - 1].strip()
            if depth <= 0 and (opened or stripped.endswith(";") or stripped.startswith("#")):
                break
        kept.extend(lines[start:i])
    return "\n".join(kept)


def _brace_balance(code: str) -> int:
    text = bare(code)
    return text.count("{") - text.count("}")
