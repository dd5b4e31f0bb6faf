"""Model settings, read once at the boundary (CLI flags, editor settings) and then passed in.

Defaults suit a laptop with or without a GPU: the model's own context but at most 8k tokens
(our step prompts fit in 4k), llama.cpp's own thread choice, and the model on the GPU when
the installed llama.cpp build can use one (its generations then take turns with the
verifier's timing runs, so a timing never shares the GPU with the model).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ENV_VAR", "LlamaSettings", "ModelSettings", "ServerSettings"]

ENV_VAR = "REGRAPHT_MODEL"
"""Read when no setting or flag names a model: a GGUF path, server URL or embedded name."""


@dataclass(frozen=True, slots=True)
class LlamaSettings:
    """How llama.cpp runs an in-process GGUF model."""

    n_ctx: int | None = None
    """Context tokens shared by prompt and answer; ``None`` takes the model's training
    context, capped at 8192 (``llama.MAX_AUTO_CONTEXT``) for a laptop's memory and speed."""
    n_threads: int | None = None
    """``None`` lets llama.cpp pick (physical cores)."""
    n_gpu_layers: int | None = None
    """Layers offloaded to the GPU; ``-1`` as many as fit, ``-2`` all, ``0`` none. ``None``
    (auto): as many as fit when this xllamacpp build sees a GPU, else none. An explicit
    number needs a GPU build of xllamacpp: without one it is ignored with a warning."""
    main_gpu: int = 0
    """The one GPU, among those this process sees, that holds the model: the verifier's
    (``--gpu``), so the model's answers take turns with the runs they would slow. Never
    spread over several GPUs, where it would slow other workers' timing runs."""


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How to talk to a local OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio)."""

    model: str = ""
    """Model name the server knows; empty asks the server and takes the first it lists."""
    allow_remote: bool = False
    """Source code is sent to the server: only loopback is accepted unless this is set."""
    api_key: str = ""
    context_tokens: int = 4096
    """The server's context size, for prompt budgeting (the API does not report it)."""
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 120.0
    """Longest silence tolerated while waiting for the next piece of a streamed answer."""
    retries: int = 2
    """Extra attempts when the server is unreachable or busy, before any text arrived."""
    backoff_s: float = 0.5
    """First retry delay; doubled for each further attempt."""


@dataclass(frozen=True, slots=True)
class ModelSettings:
    model: str | None = None
    """A GGUF path, an ``http(s)://`` server base URL or an embedded model name; ``None``
    falls back to ``$REGRAPHT_MODEL`` and then the embedded default."""
    llama: LlamaSettings = field(default_factory=LlamaSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
