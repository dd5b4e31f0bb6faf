"""One deadline for the whole job: a model step that would take minutes and the real nvcc
still end the job within seconds of its limit."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.proposal import StopReason
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.graph.build import build_snapshot
from regrapht_core.model.protocol import ChatMessage, Completion, FinishReason, Sampling
from regrapht_core.model.settings import ModelSettings
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.search.config import SearchConfig
from regrapht_core.tasks.extract import extract_task
from regrapht_core.verify.config import VerifyConfig
from tests.core.optimize.test_cli import SEED_TRAJECTORIES
from tests.core.optimize.test_proposers import ScriptedModel

EXAMPLE = Path(__file__).parents[3] / "examples" / "smooth.cpp"
LIMIT_S = 60.0
SLACK_S = 10.0


class SlowModel(ScriptedModel):
    """Thinks for ten minutes per answer unless the deadline it is given stops it first."""

    def generate(
        self, messages: Sequence[ChatMessage], sampling: Sampling, **options: Any
    ) -> Completion:
        deadline: Deadline = options.get("deadline", NO_DEADLINE)
        self.deadlines.append(deadline)
        started = time.monotonic()
        while time.monotonic() - started < 600.0:
            if deadline.expired:
                return Completion("", FinishReason.TIMEOUT, 0, None, time.monotonic() - started)
            time.sleep(0.05)
        return Completion("", FinishReason.STOP, 0, None, time.monotonic() - started)


@pytest.mark.slow
def test_a_job_with_a_model_step_ends_within_seconds_of_its_limit(tmp_path: Path) -> None:
    model = SlowModel("")
    # The seed graph keeps the steps the search takes fixed: with the shipped graph's 61
    # edges the rewriters act from every state the bundled example reaches in the limit,
    # so the model is never asked (test_cli builds it for the same reason).
    seed = tmp_path / "seed.msgpack"
    build_snapshot([SEED_TRAJECTORIES], seed)
    settings = JobSettings(
        search=SearchConfig(budget=1000, time_limit_s=LIMIT_S),
        model=ModelSettings(),
        verify=VerifyConfig(cache_dir=tmp_path / "objects"),
        snapshot=seed,
    )
    optimizer = Optimizer(settings, env={}, model_loader=lambda _source, _settings: model)
    task = extract_task(
        EXAMPLE.read_text(encoding="utf-8"), language_for_path(EXAMPLE), function="smooth"
    )
    started = time.monotonic()
    outcome = optimizer.run(task)
    wall = time.monotonic() - started
    assert model.deadlines, "the search never reached a model step"
    assert outcome.search.stop_reason is StopReason.TIME_LIMIT
    assert any(c.producer.startswith("rewriter:") for c in outcome.search.candidates)
    assert wall <= LIMIT_S + SLACK_S, f"the job ran {wall:.1f} s with a {LIMIT_S:.0f} s limit"
