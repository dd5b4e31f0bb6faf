"""The VS Code extension's ``regrapht.*`` settings mirror the server's one to one: same
names, same defaults, types the server accepts, and a description for each."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from regrapht_server.settings import SECTION, Settings, camel_case, parse_settings

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "vscode-extension" / "package.json"
EXTENSION_ONLY = {"python"}
"""Read by the extension itself (how to start the server), never sent to it."""


def contributed() -> dict[str, dict[str, Any]]:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    prefix = f"{SECTION}."
    assert all(key.startswith(prefix) for key in properties)
    return {key.removeprefix(prefix): value for key, value in properties.items()}


def test_every_server_setting_is_contributed_and_nothing_else() -> None:
    server = {camel_case(spec.name) for spec in fields(Settings)}
    assert set(contributed()) - EXTENSION_ONLY == server


@pytest.mark.parametrize("spec", fields(Settings), ids=lambda spec: camel_case(spec.name))
def test_defaults_and_types_agree(spec: Any) -> None:
    entry = contributed()[camel_case(spec.name)]
    assert entry["default"] == spec.default
    assert entry.get("markdownDescription") or entry.get("description")
    kinds = entry["type"] if isinstance(entry["type"], list) else [entry["type"]]
    assert ("null" in kinds) == (spec.default is None)
    # The default the extension sends is one the server takes without a warning.
    settings, problems = parse_settings({camel_case(spec.name): entry["default"]})
    assert problems == []
    assert getattr(settings, spec.name) == spec.default


def test_bounds_match_what_the_server_accepts() -> None:
    entries = contributed()
    for name, entry in entries.items():
        if name in EXTENSION_ONLY:
            continue
        below = None
        if "minimum" in entry:
            below = entry["minimum"] - 1
        elif "exclusiveMinimum" in entry:
            below = entry["exclusiveMinimum"]
        if below is not None:
            _, problems = parse_settings({name: below})
            assert problems, f"{name}={below} is outside the manifest's bounds"
            _, problems = parse_settings({name: below + 1})
            assert problems == [], name
