"""In-process GGUF models through llama-cpp-python.

The language server's stdout is its JSON-RPC channel. llama-cpp-python's ``verbose=False``
silences loading by pointing the *process's* file descriptors 1 and 2 at /dev/null for the
duration, which would swallow any message another thread sends meanwhile. So the model is
loaded with ``verbose=True`` and its output is routed instead: llama.cpp's native log
lines go to ``logging`` (logger ``regrapht_core.model.llama.native``), the few Python-level
load messages are captured from stderr and logged at debug level. One model object is not
safe to use from two threads, so calls are serialised.

Cancellation and the job's deadline are checked between streamed tokens, but reading a
long prompt happens before the first token and can take seconds on a laptop CPU; during
that phase llama.cpp's abort callback is armed so a cancel or the deadline interrupts it
too. It is disarmed once tokens flow, because it is called for every graph node and costs
decode speed.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import logging
import threading
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.errors import ModelError
from regrapht_core.model.protocol import (
    ChatMessage,
    Completion,
    FinishReason,
    Sampling,
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
_native = logging.getLogger(f"{__name__}.native")
# ggml_log_level: none, info, warn, error, debug, continuation (of the previous line).
_NATIVE_LEVELS = (
    logging.CRITICAL,
    logging.INFO,
    logging.WARNING,
    logging.ERROR,
    logging.DEBUG,
    logging.DEBUG,
)


def _forward_native_log(level: int, text: bytes, _data: ctypes.c_void_p) -> None:
    line = text.decode("utf-8", "replace").rstrip()
    if line:
        level = _NATIVE_LEVELS[level] if 0 <= level < len(_NATIVE_LEVELS) else logging.DEBUG
        # llama.cpp reports normal loading at warn level; keep it below the user's eye.
        _native.log(min(level, logging.INFO), "%s", line)


@functools.cache
def _route_native_logs() -> object:
    """Install the forwarder once; the returned callback must stay referenced (cached)."""
    from llama_cpp import llama_cpp as lib

    callback = lib.llama_log_callback(_forward_native_log)
    lib.llama_log_set(callback, ctypes.c_void_p(0))
    return callback


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
        from llama_cpp import llama_cpp as lib

        self._llm = llm
        self._name = name
        self._lock = threading.Lock()
        self._lib = lib
        self._prefill: StopWatch | None = None
        # Kept on the instance: ctypes must not collect a callback llama.cpp still holds.
        self._abort = lib.ggml_abort_callback(self._should_abort)
        self._no_abort = lib.ggml_abort_callback()

    def _should_abort(self, _data: ctypes.c_void_p) -> bool:
        watch = self._prefill
        return watch is not None and watch.interrupt() is not None

    def _arm(self, watch: StopWatch | None) -> None:
        self._prefill = watch
        callback = self._abort if watch is not None else self._no_abort
        # llama-cpp-python exposes no setter; its context handle is the documented C one.
        self._lib.llama_set_abort_callback(self._llm._ctx.ctx, callback, None)

    @classmethod
    def load(
        cls,
        path: Path,
        settings: LlamaSettings,
        *,
        chat_format: str | None = None,
        name: str | None = None,
    ) -> LlamaCppModel:
        """Load ``path``; its own chat template is used unless a format is forced.

        ``name`` defaults to the GGUF's ``general.name``, then the file name.
        """
        check_gguf(path)
        from llama_cpp import Llama

        _route_native_logs()
        chatter = io.StringIO()
        try:
            with contextlib.redirect_stderr(chatter):
                llm = Llama(
                    model_path=str(path),
                    n_ctx=settings.n_ctx,
                    n_threads=settings.n_threads,
                    n_gpu_layers=settings.n_gpu_layers,
                    chat_format=settings.chat_format or chat_format,
                    verbose=True,  # see the module docstring: False redirects fd 1
                )
            llm.verbose = False  # no per-call timing printouts
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"{path}: llama.cpp cannot load this model ({exc}). The file is corrupt, "
                "truncated or of an architecture this llama-cpp-python does not support: "
                "re-download it or upgrade llama-cpp-python."
            ) from exc
        finally:
            _log.debug("llama-cpp-python loading %s:\n%s", path, chatter.getvalue())
        if "tokenizer.chat_template" not in llm.metadata and not (
            settings.chat_format or chat_format
        ):
            _log.warning(
                "%s has no chat template; using llama-cpp-python's %r format. Set the "
                "chat_format setting if answers look wrong.",
                path,
                llm.chat_format,
            )
        return cls(llm, name or llm.metadata.get("general.name") or path.stem)

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
        sampling: Sampling,
        *,
        on_token: TokenSink | None = None,
        cancel: threading.Event | None = None,
        deadline: Deadline = NO_DEADLINE,
    ) -> Completion:
        with self._lock:
            watch = StopWatch(on_token=on_token, cancel=cancel, deadline=deadline)
            early = watch.interrupt()
            if early is not None:
                return watch.finish(early)
            self._arm(watch)
            reason = FinishReason.STOP
            try:
                stream = cast(
                    "Generator[CreateChatCompletionStreamResponse, None, None]",
                    self._llm.create_chat_completion(
                        messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                        max_tokens=sampling.max_tokens,
                        temperature=sampling.temperature,
                        seed=sampling.seed,
                        stop=list(sampling.stop),
                        stream=True,
                    ),
                )
                for chunk in stream:
                    if self._prefill is not None:
                        self._arm(None)
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
            except RuntimeError as exc:  # llama_decode returned 2: aborted by the callback
                interrupted = watch.interrupt()
                if interrupted is None:
                    raise ModelError(f"{self._name}: llama.cpp failed ({exc}).") from exc
                reason = interrupted
            except ValueError as exc:
                raise ModelError(
                    f"{self._name}: {exc}. Shorten the prompt or raise the context size "
                    "setting (n_ctx)."
                ) from exc
            finally:
                self._arm(None)
            return watch.finish(reason)
