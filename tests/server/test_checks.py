"""``regrapht.check`` and ``regrapht.graph``: what the extension's check and ReGraph
commands show, through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from regrapht_server.checks import check_setup, graph_summary, render_check
from regrapht_server.settings import Settings

from .conftest import configure


def test_a_missing_model_is_reported_with_its_setting_and_the_gpu_still_checked(
    tmp_path: Path,
) -> None:
    settings = Settings(model=str(tmp_path / "absent.gguf"))
    result = check_setup(settings, {"PATH": str(tmp_path)})
    assert result["model"]["ok"] is False
    assert "absent.gguf" in result["model"]["error"]
    # An empty PATH: no nvidia-smi and no nvcc, said with the setting that fixes it.
    assert result["gpu"] == {
        "ok": False,
        "device": None,
        "driver": None,
        "arch": None,
        "nvcc": None,
        "nvccPath": None,
    }
    assert result["snapshot"]["ok"] is True
    assert result["snapshot"]["nodes"] > 1
    text = result["text"]
    assert "regrapht.model" in text
    assert "regrapht.nvccPath" in text
    assert "no GPU found" in text


def test_a_bad_snapshot_names_its_setting(tmp_path: Path) -> None:
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(b"not a snapshot")
    result = check_setup(Settings(snapshot_path=str(bad)), {"PATH": ""}, answer=False)
    assert result["snapshot"]["ok"] is False
    assert "regrapht.snapshotPath" in render_check(result)


def test_rewriters_only_still_names_the_model_it_would_use() -> None:
    result = check_setup(Settings(use_model=False), {"PATH": ""}, answer=False)
    assert result["model"]["used"] is False
    assert result["model"]["ok"] is True
    assert "regrapht.useModel" in result["text"]


def test_the_graph_summary_counts_examples_per_transition() -> None:
    summary = graph_summary(Settings())
    ids = {node["id"] for node in summary["nodes"]}
    assert "sequential" in ids
    assert summary["edges"]
    for edge in summary["edges"]:
        assert edge["from"] in ids
        assert edge["to"] in ids
        assert edge["examples"] >= 1


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


async def test_graph_with_an_unusable_snapshot_is_an_error_naming_the_setting(
    client: LanguageClient, tmp_path: Path
) -> None:
    configure(client, snapshotPath=str(tmp_path / "none.msgpack"))
    with pytest.raises(JsonRpcException, match=r"regrapht\.snapshotPath"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams("regrapht.graph", [])
        )
