"""``regrapht model check`` with each of the three ways of getting a model."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from regrapht_core.model.cli import model
from regrapht_core.model.embedded import EMBEDDED

SHORT = ["check", "--max-tokens", "6", "--n-ctx", "512", "--threads", "2"]


def run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(model, args, env={"REGRAPHT_MODEL": "", **(env or {})})
    return result.exit_code, result.output


def test_check_embedded_default() -> None:
    code, out = run(SHORT)
    assert code == 0, out
    assert "source:   embedded (embedded default)" in out
    assert "location: qwen2.5-coder-0.5b: " in out
    assert "model:    qwen2.5-coder-0.5b (context 512 tokens, on CPU)" in out
    assert "first token" in out
    assert "tokens/s" in out


def test_check_byo_gguf_from_the_environment(embedded_gguf: Path) -> None:
    code, out = run(SHORT, env={"REGRAPHT_MODEL": str(embedded_gguf)})
    assert code == 0, out
    assert "source:   gguf (environment (REGRAPHT_MODEL))" in out
    assert f"location: {embedded_gguf}" in out


def test_check_local_server_from_the_flag(llama_server: str) -> None:
    code, out = run([*SHORT, "--model", llama_server])
    assert code == 0, out
    assert "source:   server (setting)" in out
    assert f"qwen2.5-coder-0.5b @ {llama_server}" in out


def test_check_refuses_a_remote_server() -> None:
    code, out = run([*SHORT, "--model", "http://10.0.0.5:8000/v1"])
    assert code == 1
    assert "Refusing to send code" in out
    assert "--allow-remote" in out


def test_check_missing_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    code, out = run([*SHORT, "--model", str(tmp_path / "x.gguf")])
    assert code == 1
    assert "model file not found" in out
    assert "Traceback" not in out


def test_check_json_is_one_parsable_document() -> None:
    """Install finding of #15: ``model check --json`` for scripts; stdout holds only it."""
    code, out = run([*SHORT, "--json"])
    assert code == 0, out
    document = json.loads(out)
    assert (document["source"], document["origin"]) == ("embedded", "embedded default")
    assert document["model"] == "qwen2.5-coder-0.5b"
    assert document["location"].endswith(EMBEDDED["qwen2.5-coder-0.5b"].filename)
    assert document["tokensPerSecond"] > 0
    assert document["tokens"] >= 1 and isinstance(document["answer"], str)
    assert document["contextTokens"] == 512 and document["loadSeconds"] > 0
    assert document["runsOn"] == "CPU"  # PyPI's xllamacpp wheel: auto offload finds no GPU
