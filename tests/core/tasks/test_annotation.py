from __future__ import annotations

import pytest

from regrapht_core.contracts.task import Distribution, Role, TimingMode
from regrapht_core.errors import TaskError
from regrapht_core.tasks.annotation import annotation_text, parse_annotation, render_annotation

from .conftest import extract


def test_parses_the_documented_example() -> None:
    note = parse_annotation(["n = 1<<20; x[n] in; y[n] inout; a = 2.5"], "f.c:3")
    assert note.assignments == {"n": "1<<20", "a": "2.5"}
    assert note.arrays["x"].role is Role.IN and note.arrays["x"].length == "n"
    assert note.arrays["y"].role is Role.INOUT


def test_distributions_and_settings() -> None:
    note = parse_annotation(
        [
            "rp[m+1] in ~ csr(col=ci, cols=n); v[nnz] ~ normal(0, 2); w ~ int(1, 9)",
            "atol = 1e-3; timing = kernel_only; grid = (n+255)/256, m; block = 256, 1",
        ],
        "f.c:1",
    )
    assert note.arrays["rp"].dist == Distribution("csr", params=(("col", "ci"), ("cols", "n")))
    assert note.arrays["v"].dist == Distribution("normal", mean=0, std=2)
    assert note.arrays["v"].role is None
    assert note.arrays["w"].dist == Distribution("int", lo=1, hi=9)
    assert note.atol == 1e-3 and note.timing is TimingMode.KERNEL_ONLY
    assert note.grid == ("(n+255)/256", "m") and note.block == ("256", "1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x[n] output", "expected 'name = expr'"),
        ("n = __import__('os')", "contains Call"),
        ("x[n.real] in", "Attribute"),
        ("timing = fastest", "timing must be one of"),
        ("v ~ normal(0, 1, 2)", "takes no positional value"),
        ("rp[m+1] in ~ csr(col0=ci)", r"csr has no parameter 'col0' \(it takes col, cols\)"),
        ("p ~ permutation(edges=no)", "permutation has no parameter 'edges' .it takes no named"),
    ],
)
def test_errors_name_the_item(text: str, message: str) -> None:
    with pytest.raises(TaskError, match=rf"f\.c:9: annotation item .*{message}"):
        parse_annotation([text], "f.c:9")


def test_comment_forms() -> None:
    assert annotation_text("// regrapht: n = 4") == "n = 4"
    assert annotation_text("/* regrapht: x[n] in */") == "x[n] in"
    assert annotation_text("// a plain comment") is None


def test_render_parses_back_to_the_same_spec() -> None:
    task = extract("spmv_csr.c", "spmv_csr")
    comment = render_annotation(task.args, task.timing_size)
    note = parse_annotation([annotation_text(comment) or ""], "x")
    for arg in task.outputs + tuple(a for a in task.args if a.length):
        assert note.arrays[arg.name].length == arg.length
        assert note.arrays[arg.name].role is arg.role
    assert note.arrays["row_ptr"].dist == task.arg("row_ptr").dist
