"""The engine's fingerprint: the code a bench run can import and the package's data, not
the modules no bench run executes (task generation, mining's commands, the report)."""

from __future__ import annotations

from pathlib import Path

from regrapht_core.bench.fingerprint import PACKAGE, engine_files, engine_fingerprint


def _package(root: Path) -> Path:
    package = root / "pkg"
    (package / "bench").mkdir(parents=True)
    (package / "search").mkdir()
    (package / "tasks").mkdir()
    (package / "__init__.py").write_text("")
    (package / "bench" / "__init__.py").write_text("")
    (package / "bench" / "runner.py").write_text(
        "from pkg.search.mcgs import DEPTH\nfrom . import timing\n"
        "def late():\n    from ..tasks import extract\n"
    )
    (package / "bench" / "cli.py").write_text("import pkg.bench.runner\n")
    (package / "bench" / "timing.py").write_text("REPS = 10\n")
    (package / "bench" / "report.py").write_text("TITLE = 'a'\n")
    (package / "search" / "__init__.py").write_text("")
    (package / "search" / "mcgs.py").write_text("DEPTH = 5\n")
    (package / "tasks" / "extract.py").write_text("X = 1\n")
    (package / "tasks" / "generate.py").write_text("FAMILIES = 25\n")
    return package


def test_the_fingerprint_follows_what_a_bench_run_imports(tmp_path: Path) -> None:
    package = _package(tmp_path)
    names = {p.relative_to(package).as_posix() for p in engine_files(package)}
    assert names == {
        "__init__.py", "bench/__init__.py", "bench/runner.py", "bench/cli.py",
        "bench/timing.py", "search/__init__.py", "search/mcgs.py", "tasks/extract.py",
    }  # fmt: skip
    before = engine_fingerprint(package)
    (package / "bench" / "report.py").write_text("TITLE = 'b'\n")
    (package / "tasks" / "generate.py").write_text("FAMILIES = 26\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.cpython-312.pyc").write_bytes(b"\0")
    assert engine_fingerprint(package) == before, "report, generator and bytecode do not count"
    for changed in ("search/mcgs.py", "bench/timing.py", "tasks/extract.py"):
        original = (package / changed).read_text()
        (package / changed).write_text(original + "# changed\n")
        assert engine_fingerprint(package) != before, changed
        (package / changed).write_text(original)
    assert engine_fingerprint(package) == before
    (package / "data").mkdir()
    (package / "data" / "graph.msgpack").write_bytes(b"\x90")
    assert engine_fingerprint(package) != before, "the bundled snapshot counts"


def test_the_real_engine_holds_search_and_verifier_but_not_the_generator() -> None:
    names = {p.relative_to(PACKAGE).as_posix() for p in engine_files(PACKAGE)}
    assert {"search/mcgs.py", "verify/pipeline.py", "optimize/session.py"} <= names
    assert {"data/regraph.msgpack", "rewrite/__init__.py"} <= names
    assert not {"bench/report.py", "tasks/generate/corpus.py", "graph/cli.py"} & names
