from __future__ import annotations

import pytest

from regrapht_core.errors import TaskError
from regrapht_core.tasks.expr import evaluate, evaluate_length, free_names


@pytest.mark.parametrize(
    ("expr", "binding", "expected"),
    [
        ("n*m", {"n": 3, "m": 5}, 15),
        ("1<<20", {}, 1 << 20),
        ("(n+1)", {"n": 7}, 8),
        ("n/2", {"n": 7}, 3),
        ("-n/2", {"n": 7}, -3),
        ("-n % 3", {"n": 7}, -1),
        ("n >> 1", {"n": 9}, 4),
        ("2.5f * n", {"n": 2}, 5.0),
        ("1024u + 1", {}, 1025),
        ("1.0/n", {"n": 4}, 0.25),
        ("0x100", {}, 256),
    ],
)
def test_evaluates_with_c_semantics(
    expr: str, binding: dict[str, int | float], expected: int | float
) -> None:
    value = evaluate(expr, binding, where="t.toml: args[0].length")
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    "hostile",
    [
        "__import__('os').system('true')",
        "n.__class__",
        "x.real",
        "f(n)",
        "abs(n)",
        "lambda: 1",
        "[n]",
        "'n'",
        "n ** 2",
        "n and m",
        "n if m else 1",
        "n < m",
        "True + 1",
        "__builtins__",
        "n[0]",
        "n; m",
        "x" * 300,
    ],
)
def test_rejects_anything_but_arithmetic(hostile: str) -> None:
    with pytest.raises(TaskError, match=r"^task\.toml: args\[2\]\.length: "):
        evaluate(hostile, {"n": 1, "m": 2, "x": 3, "f": 4}, where="task.toml: args[2].length")


def test_guards_against_huge_and_undefined_results() -> None:
    with pytest.raises(TaskError, match="shifts by 100"):
        evaluate("1 << 100", {}, where="w")
    with pytest.raises(TaskError, match="overflows"):
        evaluate("(1<<62) * (1<<62)", {}, where="w")
    with pytest.raises(TaskError, match="divides by zero"):
        evaluate("n / (m - 2)", {"n": 1, "m": 2}, where="w")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(TaskError, match=r"uses 'k', which has no value \(known: m, n\)"):
        evaluate("n*k", {"n": 1, "m": 2}, where="w")


def test_lengths_must_be_whole_and_non_negative() -> None:
    assert evaluate_length("n*m/2", {"n": 3, "m": 4}, where="w") == 6
    with pytest.raises(TaskError, match="negative"):
        evaluate_length("n - 5", {"n": 3}, where="w")
    with pytest.raises(TaskError, match="not a whole number"):
        evaluate_length("n * 1.5", {"n": 3}, where="w")


def test_free_names() -> None:
    assert free_names("(m+1)*n - 1<<k", where="w") == {"m", "n", "k"}
