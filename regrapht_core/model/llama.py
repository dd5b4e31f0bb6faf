"""In-process GGUF models through llama-cpp-python.

llama.cpp writes its logs to stderr only with ``verbose=False``; stdout stays clean, which
the language server needs (stdout is its JSON-RPC channel). One model object is not safe
to use from two threads, so calls are serialised.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from regrapht_core.errors import ModelError
from regrapht_core.model.protocol import (
    ChatMessage,
    Completion,
    FinishReason,
    StopWatch,
    TokenSink,
)
from regrapht_core.model.settings import LlamaSettings

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_types import CreateChatCompletionStreamResponse

__all__ = ["GGUF_MAGIC", "LlamaCppModel", "check_gguf"]

GGUF_MAGIC = b"GGUF"
_log = logging.getLogger(__name__)


def check_gguf(path: Path) -> None:
    """Fail early, naming the file, before llama.cpp gives a vaguer error."""
    if not path.exists():
        raise ModelError(
            f"{path}: model file not found. Point --model / REGRAPHT_MODEL at an existing "
            "GGUF file, or unset them to use the embedded default."
        )
    if not path.is_file():
        raise ModelError(f"{path}: is not a file. --model / REGRAPHT_MODEL must name a GGUF file.")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise ModelError(
            f"{path}: not a GGUF model file (it starts with {magic!r}). Convert or download "
            "the model in GGUF format (llama.cpp's format), or point --model elsewhere."
        )


class LlamaCppModel:
    def __init__(self, llm: Llama, name: str) -> None:
        self._llm = llm
        self._name = name
        self._lock = threading.Lock()

    @classmethod
    def load(
        cls, path: Path, settings: LlamaSettings, *, chat_format: str | None = None
    ) -> LlamaCppModel:
        """Load ``path``; its own chat template is used unless a format is forced."""
        check_gguf(path)
        from llama_cpp import Llama

        try:
            llm = Llama(
                model_path=str(path),
                n_ctx=settings.n_ctx,
                n_threads=settings.n_threads,
                n_gpu_layers=settings.n_gpu_layers,
                chat_format=settings.chat_format or chat_format,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"{path}: llama.cpp cannot load this model ({exc}). The file is corrupt, "
                "truncated or of an architecture this llama-cpp-python does not support: "
                "re-download it or upgrade llama-cpp-python."
            ) from exc
        if "tokenizer.chat_template" not in llm.metadata and not (
            settings.chat_format or chat_format
        ):
            _log.warning(
                "%s has no chat template; using llama-cpp-python's %r format. Set the "
                "chat_format setting if answers look wrong.",
                path,
                llm.chat_format,
            )
        name = llm.metadata.get("general.name") or path.stem
        return cls(llm, name)

    @property
    def name(self) -> str:
        return self._name

    @property
    def context_tokens(self) -> int:
        return self._llm.n_ctx()

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def generate(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: Sequence[str] = (),
        on_token: TokenSink | None = None,
        cancel: threading.Event | None = None,
        time_limit_s: float | None = None,
    ) -> Completion:
        watch = StopWatch(on_token=on_token, cancel=cancel, time_limit_s=time_limit_s)
        with self._lock:
            early = watch.interrupt()
            if early is not None:
                return watch.finish(early)
            try:
                stream = cast(
                    "Generator[CreateChatCompletionStreamResponse, None, None]",
                    self._llm.create_chat_completion(
                        messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                        max_tokens=max_tokens,
                        temperature=temperature,
                        seed=seed,
                        stop=list(stop),
                        stream=True,
                    ),
                )
                reason = FinishReason.STOP
                for chunk in stream:
                    interrupted = watch.interrupt()
                    if interrupted is not None:
                        reason = interrupted
                        break
                    choice = chunk["choices"][0]
                    delta = choice["delta"]
                    watch.add(str(delta.get("content") or ""))
                    if choice["finish_reason"] == "length":
                        reason = FinishReason.LENGTH
                stream.close()
            except ValueError as exc:
                raise ModelError(
                    f"{self._name}: {exc}. Shorten the prompt or raise the context size "
                    "setting (n_ctx)."
                ) from exc
            return watch.finish(reason)
