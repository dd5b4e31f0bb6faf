"""benchmarks/cxx/everyday/manifest.toml lists every everyday file with the function it
defines first: the probe (scripts/everyday_probe.py) and a GPU run (`regrapht bench run` on
the manifest) search the same entries, and a file added without its entry is caught here."""

from __future__ import annotations

from pathlib import Path

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_definitions, function_name
from regrapht_core.cxx.parse import parse_source

EVERYDAY = Path(__file__).resolve().parents[2] / "benchmarks" / "cxx" / "everyday"


def test_every_file_is_listed_with_the_function_it_defines_first() -> None:
    entries = {
        entry.file.name: entry.function for entry in load_manifest(EVERYDAY / "manifest.toml")
    }
    files = sorted(EVERYDAY.glob("*.cpp"))
    assert sorted(entries) == [path.name for path in files]
    for path in files:
        root = parse_source(path.read_text(encoding="utf-8"), SourceLanguage.CPP).root_node
        first = function_name(next(function_definitions(root)))
        assert entries[path.name] == first, path.name
