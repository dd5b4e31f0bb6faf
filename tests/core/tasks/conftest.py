"""Shared helpers: the sample sources under tests/data/sources and extraction from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.tasks.extract import extract_task

SOURCES = Path(__file__).resolve().parents[2] / "data" / "sources"


def source_path(name: str) -> Path:
    return SOURCES / name


def extract(file: str, function: str, *, validate: bool = False) -> Task:
    """Extraction without the AddressSanitizer run unless asked (test_extract covers it)."""
    path = source_path(file)
    return extract_task(
        path.read_text(encoding="utf-8"),
        language_for_path(path),
        function=function,
        origin=str(path),
        validate=validate,
    )


@pytest.fixture
def saxpy() -> Task:
    return extract("saxpy.c", "saxpy")
