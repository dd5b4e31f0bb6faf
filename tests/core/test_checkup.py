"""The setup check and the graph summary that ``regrapht.check`` / ``regrapht.graph`` show."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from regrapht_core.checkup import check_setup, graph_summary
from regrapht_core.optimize.session import JobSettings


def test_a_missing_model_is_reported_with_its_setting_and_the_gpu_still_checked(
    tmp_path: Path,
) -> None:
    job = JobSettings.from_options(model=str(tmp_path / "absent.gguf"))
    result = check_setup(job, env={"PATH": str(tmp_path)}).as_json()
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


def test_the_configured_nvcc_is_the_one_checked(tmp_path: Path) -> None:
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n")
    nvcc.chmod(0o755)
    job = JobSettings.from_options(nvcc=tmp_path, use_model=False)
    gpu = check_setup(job, answer=False, env={"PATH": ""}).gpu
    assert (gpu.nvcc, gpu.nvcc_path) == ("12.8.93", str(nvcc))


def test_a_bad_snapshot_names_its_setting(tmp_path: Path) -> None:
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(b"not a snapshot")
    result = check_setup(JobSettings.from_options(snapshot=bad), env={"PATH": ""}, answer=False)
    assert result.snapshot.error is not None
    assert "regrapht.snapshotPath" in result.markdown()


def test_rewriters_only_still_names_the_model_it_would_use() -> None:
    result = check_setup(JobSettings(), env={"PATH": ""}, answer=False, model_used=False)
    report = result.as_json()["model"]
    assert report["used"] is False and report["ok"] is True
    assert report["source"] == "embedded"
    assert "regrapht.useModel" in result.markdown()


def test_the_graph_summary_counts_examples_per_transition() -> None:
    summary = graph_summary(None)
    ids = {node["id"] for node in summary["nodes"]}
    assert "sequential" in ids
    assert summary["edges"]
    for edge in summary["edges"]:
        assert edge["from"] in ids
        assert edge["to"] in ids
        assert edge["examples"] >= 1


def test_the_model_check_says_where_the_model_answered() -> None:
    """The editor's setup check names the processor, so a slow CPU model is no mystery
    (PyPI's xllamacpp wheel answers on the CPU; a CUDA build with a GPU, on the GPU)."""
    pytest.importorskip("xllamacpp")
    result = check_setup(JobSettings.from_options(), env=os.environ).as_json()
    assert result["model"]["ok"] is True
    runs_on = result["model"]["runsOn"]
    assert runs_on in ("CPU", "GPU")
    assert f"qwen2.5-coder-0.5b on {runs_on}, loaded in" in result["text"]
