"""Settings: every value typed and defaulted, every bad value replaced and named."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from regrapht_server.settings import Settings, job_settings, parse_settings

from regrapht_core.search.config import SearchConfig
from regrapht_core.verify.config import VerifyConfig

DOCS = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def test_no_settings_are_the_core_defaults() -> None:
    settings, problems = parse_settings(None)
    assert problems == []
    job = job_settings(settings)
    assert job.search == SearchConfig()
    assert job.verify == VerifyConfig()
    assert job.model is not None and job.model.model is None
    assert job.snapshot is None and job.rewriters


def test_every_setting_is_read_from_its_camel_case_name(tmp_path: Path) -> None:
    nvcc = tmp_path / "bin" / "nvcc"
    nvcc.parent.mkdir()
    nvcc.write_text("")
    raw = {
        "model": " http://127.0.0.1:11434/v1 ",
        "modelServerModel": "qwen2.5-coder:0.5b",
        "allowRemote": True,
        "budget": 40.0,
        "timeLimitSeconds": 90,
        "depthCap": 3,
        "gpuIndex": 1,
        "nvccPath": str(nvcc),
        "compileTimeoutSeconds": 30,
        "runTimeoutSeconds": 5.5,
        "snapshotPath": "~/graph.msgpack",
        "allowUnverified": True,
        "rewriters": False,
    }
    settings, problems = parse_settings(raw)
    assert problems == []
    assert settings == Settings(
        model="http://127.0.0.1:11434/v1",
        model_server_model="qwen2.5-coder:0.5b",
        allow_remote=True,
        budget=40,
        time_limit_seconds=90.0,
        depth_cap=3,
        gpu_index=1,
        nvcc_path=str(nvcc.parent),
        compile_timeout_seconds=30.0,
        run_timeout_seconds=5.5,
        snapshot_path="~/graph.msgpack",
        allow_unverified=True,
        rewriters=False,
    )
    job = job_settings(settings)
    assert (job.search.budget, job.search.depth_cap, job.search.time_limit_s) == (40, 3, 90.0)
    assert job.model is not None and job.model.model == "http://127.0.0.1:11434/v1"
    assert job.model.server.model == "qwen2.5-coder:0.5b" and job.model.server.allow_remote
    assert (job.verify.compile_timeout_s, job.verify.run_timeout_s) == (30.0, 5.5)
    assert job.snapshot == Path.home() / "graph.msgpack"
    assert not job.rewriters


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("budget", "many", "expected a whole number >= 1, got 'many'; using the default (200)"),
        ("budget", True, "expected a whole number >= 1, got True"),
        ("budget", 2.5, "expected a whole number >= 1, got 2.5"),
        ("depthCap", 0, "expected a whole number >= 1, got 0; using the default (5)"),
        ("gpuIndex", -1, "expected a whole number >= 0, got -1; using the default (None)"),
        ("timeLimitSeconds", 0, "expected a positive number of seconds, got 0"),
        ("runTimeoutSeconds", "60", "expected a positive number of seconds, got '60'"),
        ("allowUnverified", "yes", "expected true or false, got 'yes'; using the default (False)"),
        ("model", 7, "expected a string, got 7; using the default ('')"),
        ("nvccPath", "/nowhere/nvcc", "no nvcc at /nowhere/nvcc"),
    ],
)
def test_a_bad_value_falls_back_to_its_default_and_names_the_setting(
    key: str, value: object, expected: str
) -> None:
    settings, problems = parse_settings({key: value})
    assert len(problems) == 1 and problems[0].startswith(f"regrapht.{key}: {expected}")
    field = next(f for f in dataclasses.fields(Settings) if f.name.replace("_", "") == key.lower())
    assert getattr(settings, field.name) == field.default


def test_good_values_survive_next_to_bad_ones() -> None:
    settings, problems = parse_settings({"budget": 0, "depthCap": 2, "allowUnverified": True})
    assert len(problems) == 1
    assert (settings.budget, settings.depth_cap, settings.allow_unverified) == (200, 2, True)


def test_null_means_unset_and_unknown_keys_are_left_alone() -> None:
    assert parse_settings({"budget": None, "futureSetting": 1}) == (Settings(), [])


def test_a_section_that_is_not_an_object_is_reported() -> None:
    assert parse_settings([1, 2]) == (
        Settings(),
        ["regrapht: expected an object of settings, got [1, 2]"],
    )


def test_nvcc_must_be_named_nvcc(tmp_path: Path) -> None:
    other = tmp_path / "clang"
    other.write_text("")
    _, problems = parse_settings({"nvccPath": str(other)})
    assert problems[0].startswith(f"regrapht.nvccPath: {other} is not named 'nvcc'")
    (tmp_path / "nvcc").write_text("")
    assert parse_settings({"nvccPath": str(tmp_path)})[0].nvcc_path == str(tmp_path)


def test_the_nvcc_folder_and_the_gpu_reach_the_verifier_as_settings(tmp_path: Path) -> None:
    verify = job_settings(Settings(nvcc_path=str(tmp_path), gpu_index=2)).verify
    assert (verify.nvcc_path, verify.gpu_index) == (tmp_path / "nvcc", 2)
    assert job_settings(Settings()).verify.nvcc == "nvcc"


def test_every_setting_is_documented_once() -> None:
    text = DOCS.read_text()
    for field in dataclasses.fields(Settings):
        head, *rest = field.name.split("_")
        name = head + "".join(part.title() for part in rest)
        assert text.count(f"| `{name}` |") == 1, name


def test_without_the_model_the_rewriters_propose_alone() -> None:
    settings, problems = parse_settings({"useModel": False, "rewriters": False})
    assert problems == [] and not settings.use_model
    job = job_settings(settings)
    assert job.model is None and job.rewriters
