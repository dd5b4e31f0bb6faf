"""The generated corpus: enough families and tasks, a stable stratified split, the committed
files exactly what the generator makes, every one validated, and failures reported."""

from __future__ import annotations

import json
import shutil
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from regrapht_core.bench.runner import load_manifest
from regrapht_core.cli import EXIT_USER_ERROR, main
from regrapht_core.tasks.generate import cli as generate_cli
from regrapht_core.tasks.generate.base import Family, Generated
from regrapht_core.tasks.generate.corpus import (
    MANIFEST,
    VALIDATION,
    digest,
    generate,
    validate,
    write_corpus,
)
from regrapht_core.tasks.generate.families.maps import FAMILIES as MAPS
from regrapht_core.tasks.generate.registry import FAMILIES

COMMITTED = Path(__file__).resolve().parents[4] / "benchmarks" / "corpus"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ with ASan")

BROKEN = Generated(
    "broken",
    "broken_reads_past_the_end",
    "shift",
    "// Reads one element past its input.\n\n"
    "// regrapht: n = 1000; x[n] in; y[n] out\n"
    "void shift(int n, const float* x, float* y) {\n"
    "    for (int i = 0; i < n; ++i) y[i] = x[i + 1];\n"
    "}\n",
)


def test_the_generator_covers_at_least_25_families_and_400_tasks() -> None:
    corpus = generate()
    families = corpus.families()
    assert len(families) >= 25, families
    assert len(corpus.tasks) >= 400
    assert min(families.values()) >= 10, families
    assert len({f.name for f in FAMILIES}) == len(FAMILIES)
    assert all(t.family in {f.name for f in FAMILIES} for t in corpus.tasks)


def test_the_split_is_stratified_by_family_and_does_not_drift() -> None:
    corpus = generate()
    sides = Counter((t.family, corpus.split[t.name]) for t in corpus.tasks)
    for family, count in corpus.families().items():
        assert sides[family, "test"] >= 1 and sides[family, "train"] >= 1, family
        assert sides[family, "test"] <= count * 0.2 + 1, family
    assert generate().split == corpus.split
    assert generate(seed=1).split != corpus.split
    assert Counter(generate(test_fraction=0.5).split.values())["test"] > sides.total() // 3


def test_repeated_names_and_bad_fractions_are_errors() -> None:
    twice = Family("elementwise_arith", "twice", lambda: [*MAPS[0].variants(), *MAPS[0].variants()])
    with pytest.raises(Exception, match="generated task names repeat"):
        generate([twice])
    with pytest.raises(Exception, match="not between 0 and 1"):
        generate(test_fraction=1.0)
    with pytest.raises(ValueError, match="does not start with its family"):
        Generated("maps", "other_name", "f", "")


def test_the_committed_corpus_is_exactly_what_the_generator_writes() -> None:
    corpus = generate()
    for task in corpus.tasks:
        path = COMMITTED / task.family / f"{task.name}.cpp"
        assert path.read_text(encoding="utf-8") == task.source, f"regenerate: {path}"
    files = {p.relative_to(COMMITTED).as_posix() for p in COMMITTED.glob("*/*.cpp")}
    assert files == {f"{t.family}/{t.name}.cpp" for t in corpus.tasks}
    entries = tomllib.loads((COMMITTED / MANIFEST).read_text(encoding="utf-8"))["task"]
    assert [(e["name"], e["split"]) for e in entries] == [
        (t.name, corpus.split[t.name]) for t in corpus.tasks
    ]
    suite = load_manifest(COMMITTED / MANIFEST)  # `regrapht bench run` takes it as it is
    assert [s.function for s in suite] == [t.function for t in corpus.tasks]
    assert [s.split for s in suite] == [corpus.split[t.name] for t in corpus.tasks]


def test_every_committed_task_was_validated_as_it_is() -> None:
    record = json.loads((COMMITTED / VALIDATION).read_text(encoding="utf-8"))
    assert record["compiler"].startswith("g++")
    assert record["tasks"] == {t.name: digest(t.source) for t in generate().tasks}


@pytest.mark.slow
@needs_gxx
def test_one_task_of_every_family_validates_here() -> None:
    firsts = {t.family: t for t in reversed(generate().tasks)}
    done: list[str] = []
    assert validate(list(firsts.values()), advance=lambda t: done.append(t.name)) == {}
    assert sorted(done) == sorted(t.name for t in firsts.values())


@needs_gxx
def test_a_task_that_reads_past_its_input_fails_with_the_reason() -> None:
    failures = validate([BROKEN])
    assert list(failures) == ["broken_reads_past_the_end"]
    assert "x" in failures["broken_reads_past_the_end"]


@needs_gxx
def test_the_command_validates_then_writes_the_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    four = tuple(MAPS[0].variants())[:4]
    small = generate([Family("elementwise_arith", "four", lambda: four)], test_fraction=0.5)
    monkeypatch.setattr(generate_cli, "generate", lambda **_: small)
    (tmp_path / "out" / "gone").mkdir(parents=True)
    (tmp_path / "out" / "gone" / "old.cpp").write_text("// no longer generated\n")
    result = CliRunner().invoke(main, ["tasks", "generate", str(tmp_path / "out"), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert "wrote 4 tasks in 1 families" in result.stderr
    written = sorted(p.name for p in (tmp_path / "out").glob("*/*.cpp"))
    assert written == sorted(f"{t.name}.cpp" for t in small.tasks)
    record = json.loads((tmp_path / "out" / VALIDATION).read_text())
    assert set(record["tasks"]) == {t.name for t in small.tasks}


@needs_gxx
def test_the_command_writes_nothing_when_a_task_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = generate([Family("broken", "", lambda: [BROKEN])], test_fraction=0.5)
    monkeypatch.setattr(generate_cli, "generate", lambda **_: broken)
    result = CliRunner().invoke(main, ["tasks", "generate", str(tmp_path / "out")])
    assert result.exit_code == EXIT_USER_ERROR
    assert "broken_reads_past_the_end:" in result.stderr
    assert "1 of 1 generated tasks failed validation" in result.stderr
    assert not (tmp_path / "out").exists()


def test_writing_again_leaves_exactly_the_corpus(tmp_path: Path) -> None:
    corpus = generate([MAPS[0]])
    write_corpus(corpus, tmp_path)
    write_corpus(corpus, tmp_path)
    assert len(list(tmp_path.glob("*/*.cpp"))) == len(corpus.tasks)
    assert not list(tmp_path.rglob(".*.tmp"))
