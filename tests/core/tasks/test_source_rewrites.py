"""Every extraction rewrite, on every function of every C++ and CUDA file in the
repository (the corpus, the everyday and C++-input benchmarks, test data, examples): none
raises, and none moves a line, since messages quote the user's line numbers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import parse_source, walk
from regrapht_core.tasks.extract import SOURCE_REWRITES
from tests.core.rewrite.support import first_step_computes, requires_nvcc, unvalidated_task
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted(
    path
    for folder in ("benchmarks", "tests", "examples")
    for pattern in ("*.cpp", "*.cu")
    for path in (ROOT / folder).rglob(pattern)
)


def test_there_are_files_to_rewrite() -> None:
    assert len(FILES) > 400


@pytest.mark.parametrize("rewrite", SOURCE_REWRITES, ids=lambda r: r.__name__)
def test_each_rewrite_on_every_function_keeps_the_lines(rewrite: object) -> None:
    assert callable(rewrite)
    changed = 0
    for path in FILES:
        source = path.read_text(encoding="utf-8", errors="replace")
        language = SourceLanguage.CUDA if path.suffix == ".cu" else SourceLanguage.CPP
        count = sum(
            n.type == "function_definition" for n in walk(parse_source(source, language).root_node)
        )
        for index in range(count):
            root = parse_source(source, language).root_node
            function = [n for n in walk(root) if n.type == "function_definition"][index]
            written = rewrite(source, function)
            assert written.count("\n") == source.count("\n"), f"{path.name}: a line moved"
            changed += written != source
    assert changed > 0, "the files hold at least one function each rewrite reads"


def test_the_rewrites_on_code_being_typed_raise_nothing_and_keep_the_lines() -> None:
    """Extraction runs the rewrites before it checks the syntax, so each must take a
    half-typed function (error nodes and all) without raising or moving a line
    (``scripts/fuzz_rewrites.py`` runs the same over every C++ file of the repository)."""
    rng = random.Random(20261201)
    cpp = [p for p in FILES if p.suffix == ".cpp"]
    runs, failures = load_script("fuzz_rewrites").fuzz(
        rng.sample(cpp, 200), SOURCE_REWRITES, rng, 1
    )
    assert runs > 0
    assert failures == []


CHAINED = """// regrapht: n = 4099; data[n] inout
void scale(float* data, int n, float k) {
    float* p = data;
    int i = 0;
    while (i < n) {
        *p++ *= k;
        ++i;
    }
}
"""


@requires_nvcc
def test_the_rewrites_compose_in_their_order(tmp_path: Path) -> None:
    """A counting ``while`` becomes a ``for``, whose pointer walk becomes ``p[i]``, whose
    alias becomes ``data``: three rewrites, one kernel, the loop's results."""
    task = unvalidated_task(CHAINED, "scale")
    assert "data[(0) + (i)] *= k;" in task.source
    assert "__global__" in first_step_computes(task, tmp_path)
