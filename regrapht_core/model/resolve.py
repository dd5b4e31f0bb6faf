"""Which model to use and where it comes from: setting or flag, then environment, then default.

One spec string covers the three ways of getting a model, so the editor setting, the CLI
flag and ``$REGRAPHT_MODEL`` all accept the same values: an ``http(s)://`` URL of a local
server, the name of an embedded model, or a path to a GGUF file.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from regrapht_core.errors import ModelError
from regrapht_core.model.embedded import (
    DEFAULT_EMBEDDED,
    EMBEDDED,
    SpecFinder,
    embedded_path,
)
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.protocol import CodeModel, GpuTurn
from regrapht_core.model.server import OpenAIServerModel
from regrapht_core.model.settings import ENV_VAR, ModelSettings

__all__ = [
    "ModelSource",
    "Origin",
    "SourceKind",
    "default_cache_dir",
    "load_model",
    "resolve_source",
]


class Origin(StrEnum):
    SETTING = "setting"
    ENVIRONMENT = f"environment ({ENV_VAR})"
    DEFAULT = "embedded default"


class SourceKind(StrEnum):
    EMBEDDED = "embedded"
    GGUF = "gguf"
    SERVER = "server"


@dataclass(frozen=True, slots=True)
class ModelSource:
    kind: SourceKind
    location: str
    """Embedded model name, GGUF path or server URL, as given."""
    origin: Origin


def resolve_source(settings: ModelSettings, env: Mapping[str, str]) -> ModelSource:
    if settings.model:
        return _classify(settings.model, Origin.SETTING)
    if env.get(ENV_VAR, "").strip():
        return _classify(env[ENV_VAR], Origin.ENVIRONMENT)
    return ModelSource(SourceKind.EMBEDDED, DEFAULT_EMBEDDED, Origin.DEFAULT)


def _classify(spec: str, origin: Origin) -> ModelSource:
    spec = spec.strip()
    if "://" in spec:
        return ModelSource(SourceKind.SERVER, spec, origin)
    if spec in EMBEDDED:
        return ModelSource(SourceKind.EMBEDDED, spec, origin)
    return ModelSource(SourceKind.GGUF, spec, origin)


def default_cache_dir(env: Mapping[str, str]) -> Path:
    """Where embedded models are joined from their part packages (XDG cache)."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "regrapht" / "models"


def load_model(
    source: ModelSource,
    settings: ModelSettings,
    *,
    cache_dir: Path,
    find_spec: SpecFinder = importlib.util.find_spec,
    gpu_turn: GpuTurn | None = None,
) -> CodeModel:
    """Open the model; a missing file, a corrupt one or a refused server is a ``ModelError``.
    ``gpu_turn``: what an in-process model's answers hold if it runs on the GPU."""
    if source.kind is SourceKind.SERVER:
        return OpenAIServerModel.connect(source.location, settings.server)
    if source.kind is SourceKind.EMBEDDED:
        embedded = EMBEDDED[source.location]
        path = embedded_path(embedded, cache_dir=cache_dir, find_spec=find_spec)
        return LlamaCppModel.load(path, settings.llama, name=embedded.name, gpu_turn=gpu_turn)
    path = Path(source.location).expanduser()
    if path.suffix.lower() != ".gguf" and not path.exists():
        known = ", ".join(EMBEDDED)
        raise ModelError(
            f"{path}: no such model file, and not an embedded model name ({known}) nor an "
            "http(s):// server URL. Fix --model / REGRAPHT_MODEL."
        )
    return LlamaCppModel.load(path, settings.llama, gpu_turn=gpu_turn)
