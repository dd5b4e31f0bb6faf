"""Which model the settings name, and whether it loads and answers.

One check for ``regrapht model check`` and the editor's setup check, so both describe the
model the next job would use the same way. Problems a user must fix are ``ModelError``s
naming the file, URL or setting.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from regrapht_core.model.embedded import EMBEDDED, embedded_path
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.protocol import ChatMessage, CodeModel, Completion, Sampling, TokenSink
from regrapht_core.model.resolve import (
    ModelSource,
    SourceKind,
    default_cache_dir,
    load_model,
    resolve_source,
)
from regrapht_core.model.settings import ModelSettings

__all__ = ["CHECK_PROMPT", "ModelPlace", "ModelTrial", "locate_model", "runs_on", "try_model"]

CHECK_PROMPT = "Write a CUDA kernel that adds two float arrays element-wise."
_SHORT_ANSWER = Sampling(32, seed=0)


@dataclass(frozen=True, slots=True)
class ModelPlace:
    """Where the model comes from: the source the settings resolve to, and its location
    (an embedded model's assembled GGUF file named after it)."""

    source: ModelSource
    location: str


@dataclass(frozen=True, slots=True)
class ModelTrial:
    """The model loaded and answered a short prompt: how long each part took."""

    name: str
    context_tokens: int
    load_s: float
    prompt: str
    completion: Completion
    runs_on: str
    """``GPU`` or ``CPU`` for an in-process model, ``server`` for a model server's own."""


def locate_model(settings: ModelSettings, env: Mapping[str, str]) -> ModelPlace:
    """The source ``settings`` (then ``$REGRAPHT_MODEL`` in ``env``) resolve to."""
    source = resolve_source(settings, env)
    location = source.location
    if source.kind is SourceKind.EMBEDDED:
        found = embedded_path(EMBEDDED[location], cache_dir=default_cache_dir(env))
        location = f"{location}: {found}"
    return ModelPlace(source, location)


def try_model(
    place: ModelPlace,
    settings: ModelSettings,
    env: Mapping[str, str],
    *,
    prompt: str = CHECK_PROMPT,
    sampling: Sampling = _SHORT_ANSWER,
    on_token: TokenSink | None = None,
) -> ModelTrial:
    """Load the model and time its answer to ``prompt`` (streamed to ``on_token``)."""
    started = time.monotonic()
    llm = load_model(place.source, settings, cache_dir=default_cache_dir(env))
    load_s = time.monotonic() - started
    done = llm.generate([ChatMessage("user", prompt)], sampling, on_token=on_token)
    return ModelTrial(llm.name, llm.context_tokens, load_s, prompt, done, runs_on(llm))


def runs_on(model: CodeModel) -> str:
    """``GPU`` or ``CPU`` for an in-process model; ``server`` for a server's own choice."""
    if not isinstance(model, LlamaCppModel):
        return "server"
    return "GPU" if model.on_gpu else "CPU"
