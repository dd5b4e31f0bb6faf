"""Local language models behind one small protocol, and the prompts the search sends them.

Three ways to get a model, all local: a GGUF shipped inside a PyPI package (the default),
any GGUF file, or a loopback OpenAI-compatible server. See docs/models.md.
"""

from __future__ import annotations

from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.prompts import (
    NoCode,
    ParsedCode,
    StepPrompt,
    build_step_prompt,
    parse_response,
)
from regrapht_core.model.protocol import (
    ChatMessage,
    CodeModel,
    Completion,
    FinishReason,
    Sampling,
)
from regrapht_core.model.resolve import (
    ModelSource,
    Origin,
    SourceKind,
    default_cache_dir,
    load_model,
    resolve_source,
)
from regrapht_core.model.server import OpenAIServerModel
from regrapht_core.model.settings import LlamaSettings, ModelSettings, ServerSettings

__all__ = [
    "ChatMessage",
    "CodeModel",
    "Completion",
    "FinishReason",
    "LlamaCppModel",
    "LlamaSettings",
    "ModelSettings",
    "ModelSource",
    "NoCode",
    "OpenAIServerModel",
    "Origin",
    "ParsedCode",
    "Sampling",
    "ServerSettings",
    "SourceKind",
    "StepPrompt",
    "build_step_prompt",
    "default_cache_dir",
    "load_model",
    "parse_response",
    "resolve_source",
]
