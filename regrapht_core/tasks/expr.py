"""Length and value expressions: C arithmetic over size variables, evaluated safely.

Task files and annotation comments come from users' repositories, so ``eval`` is out of the
question. Expressions are parsed with :mod:`ast` and only numbers, names, parentheses and
arithmetic/shift operators are accepted. Integer division and remainder follow C (truncate
toward zero) so that ``n/2`` in a length means what it means in the reference code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from functools import lru_cache

from regrapht_core.errors import TaskError

__all__ = ["evaluate", "evaluate_length", "free_names", "integer_constant", "parse_expr"]

_MAX_CHARS = 256
_MAX_INT = 1 << 62
_C_SUFFIX = re.compile(r"(?<![\w.])(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uUlLfF]+\b")
_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod, ast.LShift, ast.RShift)


def _fail(where: str, expr: str, problem: str) -> TaskError:
    return TaskError(f"{where}: {expr!r} {problem}")


@lru_cache(maxsize=4096)
def _parse(expr: str) -> ast.expr | str:
    """The checked tree, or the reason it was refused (cached: sizes re-evaluate often)."""
    if len(expr) > _MAX_CHARS:
        return f"is longer than {_MAX_CHARS} characters"
    try:
        tree = ast.parse(_C_SUFFIX.sub(r"\1", expr.strip()), mode="eval")
    except SyntaxError:
        return "is not an arithmetic expression (allowed: numbers, names, + - * / % << >> ())"
    for node in ast.walk(tree.body):
        problem = _refusal(node)
        if problem is not None:
            return problem
    return tree.body


def _refusal(node: ast.AST) -> str | None:
    """Why ``node`` is not allowed in a size expression, or ``None``."""
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, _BINARY):
            return f"uses the operator {type(node.op).__name__}, which is not allowed"
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.USub | ast.UAdd):
            return f"uses the operator {type(node.op).__name__}, which is not allowed"
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            return f"contains the literal {node.value!r}; only numbers are allowed"
    elif isinstance(node, ast.Name):
        if node.id.startswith("__"):
            return f"uses the reserved name {node.id!r}"
    elif not isinstance(node, ast.operator | ast.unaryop | ast.expr_context):
        kind = type(node).__name__
        return f"contains {kind}; only arithmetic on names and numbers is allowed"
    return None


def parse_expr(expr: str, *, where: str) -> ast.expr:
    """Check ``expr`` once; ``where`` (file and field) prefixes any error."""
    parsed = _parse(expr)
    if isinstance(parsed, str):
        raise _fail(where, expr, parsed)
    return parsed


def free_names(expr: str, *, where: str) -> frozenset[str]:
    tree = parse_expr(expr, where=where)
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))


def evaluate(expr: str, binding: Mapping[str, int | float], *, where: str) -> int | float:
    tree = parse_expr(expr, where=where)
    return _eval(tree, binding, expr, where)


def integer_constant(text: str, constants: Mapping[str, int]) -> int | None:
    """``text`` as an integer over the file's constants (an array extent), else ``None``."""
    try:
        value = evaluate(text, constants, where="")
    except TaskError:
        return None
    return value if isinstance(value, int) else None


def evaluate_length(expr: str, binding: Mapping[str, int | float], *, where: str) -> int:
    """An element count: a non-negative integer, or a TaskError saying which it is not."""
    value = evaluate(expr, binding, where=where)
    if isinstance(value, float):
        if not value.is_integer():
            raise _fail(where, expr, f"is {value} at {dict(binding)}, not a whole number")
        value = int(value)
    if value < 0:
        raise _fail(where, expr, f"is negative ({value}) at {dict(binding)}")
    return value


def _eval(node: ast.expr, env: Mapping[str, int | float], expr: str, where: str) -> int | float:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, int | float)
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            known = ", ".join(sorted(env)) or "none"
            raise _fail(where, expr, f"uses {node.id!r}, which has no value (known: {known})")
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, env, expr, where)
        return -operand if isinstance(node.op, ast.USub) else operand
    assert isinstance(node, ast.BinOp)
    left = _eval(node.left, env, expr, where)
    right = _eval(node.right, env, expr, where)
    result = _apply(node.op, left, right, expr, where)
    if isinstance(result, int) and abs(result) > _MAX_INT:
        raise _fail(where, expr, f"overflows 64-bit integers at {dict(env)}")
    return result


def _apply(
    op: ast.operator, left: int | float, right: int | float, expr: str, where: str
) -> int | float:
    integers = isinstance(left, int) and isinstance(right, int)
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.LShift | ast.RShift):
        if not (isinstance(left, int) and isinstance(right, int)):
            raise _fail(where, expr, "shifts a non-integer")
        if not 0 <= right < 63:
            raise _fail(where, expr, f"shifts by {right}; shifts must be in 0..62")
        return left << right if isinstance(op, ast.LShift) else left >> right
    if right == 0:
        raise _fail(where, expr, "divides by zero")
    if isinstance(op, ast.Mod):
        if not (isinstance(left, int) and isinstance(right, int)):
            raise _fail(where, expr, "takes the remainder of a non-integer")
        return left - right * _c_div(left, right)
    if integers:
        assert isinstance(left, int) and isinstance(right, int)
        return _c_div(left, right)
    return left / right


def _c_div(left: int, right: int) -> int:
    quotient = abs(left) // abs(right)
    return quotient if (left < 0) == (right < 0) else -quotient
