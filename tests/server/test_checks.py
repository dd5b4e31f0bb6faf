"""``regrapht.check`` and ``regrapht.graph``: what the extension's check and ReGraph
commands show, through the real server (the checks themselves: tests/core/test_checkup.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .conftest import configure


async def test_check_and_graph_commands_answer_over_lsp(
    client: LanguageClient, tmp_path: Path
) -> None:
    configure(client, model=str(tmp_path / "absent.gguf"))
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("regrapht.check", [{"answer": True}])
    )
    assert answer["model"]["ok"] is False
    assert "absent.gguf" in answer["model"]["error"]
    assert set(answer) == {"model", "gpu", "snapshot", "text"}
    assert answer["text"].startswith("# ReGraphT check")

    graph = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("regrapht.graph", [])
    )
    assert graph["nodes"]
    assert graph["edges"]
    assert {"from", "to", "examples", "bestSpeedup"} <= set(graph["edges"][0])


async def test_graph_with_an_unusable_snapshot_is_an_error_naming_the_setting(
    client: LanguageClient, tmp_path: Path
) -> None:
    configure(client, snapshotPath=str(tmp_path / "none.msgpack"))
    with pytest.raises(JsonRpcException, match=r"regrapht\.snapshotPath"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams("regrapht.graph", [])
        )
