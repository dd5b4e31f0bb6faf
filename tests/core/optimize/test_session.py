"""How a job's settings reach the model: where it runs, and whose GPU turn it takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from regrapht_core.model.resolve import ModelSource
from regrapht_core.model.settings import ModelSettings
from regrapht_core.optimize.options import job_options
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.verify.config import VerifyConfig
from tests.core.optimize.test_proposers import ScriptedModel


def _settings_from(*arguments: str) -> JobSettings:
    seen: list[JobSettings] = []

    @click.command()
    @job_options(budget=3)
    def command(job: JobSettings) -> None:
        seen.append(job)

    result = CliRunner().invoke(command, list(arguments))
    assert result.exit_code == 0, result.output
    return seen[0]


@pytest.mark.parametrize(("arguments", "layers"), [((), None), (("--gpu-layers", "0"), 0)])
def test_gpu_layers_default_to_auto_and_can_be_named(
    arguments: tuple[str, ...], layers: int | None
) -> None:
    job = _settings_from(*arguments)
    assert job.model is not None
    assert job.model.llama.n_gpu_layers == layers


def test_the_model_takes_turns_with_the_jobs_own_verifier(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An in-process model on the GPU answers under the lock the verifier times under."""
    loaded: list[dict[str, Any]] = []

    def load(source: ModelSource, settings: ModelSettings, **options: Any) -> ScriptedModel:
        loaded.append(options)
        return ScriptedModel("")

    monkeypatch.setattr("regrapht_core.optimize.session.load_model", load)
    settings = JobSettings(model=ModelSettings(), verify=VerifyConfig(cache_dir=tmp_path))
    optimizer = Optimizer(settings, env={})
    assert optimizer.model() is optimizer.model()  # loaded once
    assert len(loaded) == 1
    assert loaded[0]["gpu_turn"] == optimizer.verifier.gpu_lock.shared_turn


def test_the_model_sits_on_the_verifiers_gpu() -> None:
    job = _settings_from("--gpu", "2")
    assert job.model is not None and job.verify.gpu_index == 2
    assert job.model.llama.main_gpu == 2
