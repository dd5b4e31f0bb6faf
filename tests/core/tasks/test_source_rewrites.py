"""Every extraction rewrite, on every function of every C++ and CUDA file in the
repository (the corpus, the everyday and C++-input benchmarks, test data, examples): none
raises, and none moves a line, since messages quote the user's line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import parse_source, walk
from regrapht_core.tasks.extract import SOURCE_REWRITES

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
