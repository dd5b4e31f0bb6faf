"""In-process GGUF models through xllamacpp: llama.cpp's own server, linked into the process.

xllamacpp ships prebuilt wheels (llama-cpp-python builds from source for a quarter of an
hour) and runs llama.cpp's server code in-process: the chat template stored in the GGUF,
sampling, stop strings and the context check are llama.cpp's own. Its ``Server`` brings
two things a library must contain, each handled here:

* An HTTP listener on a random loopback port. Every load sets a fresh random API key that
  is never handed out, so no other local process can use the model (or read the prompts,
  which hold the user's source) through it.
* Native log lines, which go to the process's stderr, never stdout (the language server's
  JSON-RPC channel). Only errors are printed, so a load failure says why; with this
  module's logger at debug level (``regrapht -vv``) llama.cpp's own account follows too.

Earlier xllamacpp builds also replaced the process's SIGINT/SIGTERM handlers as a server
started, which would stop Ctrl+C from interrupting the CLI and the language server's
SIGTERM handler from removing the scratch directories with the user's code; the pinned
builds leave them alone, and a test holds them to it.

A streamed answer comes from one blocking native call that hands each chunk to a callback;
the only way to stop it is for that callback to return ``True``. So the call runs on a
worker thread and the caller waits on its chunks, checking cancellation and the job's
deadline every few hundredths of a second: an interrupted ``generate`` returns at once,
also while llama.cpp is still reading a long prompt (when no token comes for seconds), and
the abandoned call stops at its next chunk. Prompt-reading progress is requested as
chunks, so "next" is at most one prompt batch (``n_batch`` tokens) away. The model serves
one call at a time: a later ``generate`` waits until the abandoned call has returned.

On a GPU build with a GPU, the model runs there (``n_gpu_layers`` auto): on the machine
that times the candidates the CPU reads prompts and writes answers slowly enough that the
model steps cost most of a job's time (docs/models.md). Its answers must then never share
the GPU with a timing run, so each ``generate`` first takes the GPU turn it was given (the
verifier's lock, which other ReGraphT processes on that GPU take too), and the native call
hands it back when llama.cpp has stopped computing: an interrupted ``generate`` still
returns at once.
"""

from __future__ import annotations

import logging
import os
import queue
import secrets
import struct
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.errors import ModelError
from regrapht_core.model.protocol import (
    ChatMessage,
    Completion,
    FinishReason,
    GpuTurn,
    Sampling,
    StopWatch,
    TokenSink,
    approx_token_count,
)
from regrapht_core.model.settings import LlamaSettings

__all__ = ["GGUF_MAGIC", "MAX_AUTO_CONTEXT", "GgufInfo", "LlamaCppModel", "check_gguf", "read_gguf"]

GGUF_MAGIC = b"GGUF"
MAX_AUTO_CONTEXT = 8192
"""Cap on a context taken from the model: current models train on 32k tokens and more,
whose cache a laptop's memory and CPU pay for while our step prompts fit in 4k."""

_log = logging.getLogger(__name__)

_POLL_S = 0.05
"""How often a waiting caller looks at its cancel event and deadline."""
_PROMPT_BATCH = 512
"""Tokens llama.cpp reads per prompt step: an abandoned call stops at the end of one.
Also its physical batch, so a smaller step costs no prompt speed on a CPU."""
_VERBOSITY_ERRORS = 1
"""llama.cpp's log threshold: errors only (0 output only, 3 info, 4 debug)..."""
_VERBOSITY_INFO = 3
"""...and what loading and each answer did, when this module logs at debug level (-vv)."""


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


@dataclass(frozen=True, slots=True)
class GgufInfo:
    """What the GGUF says about itself that loading needs before llama.cpp reads it."""

    name: str | None
    """``general.name``."""
    context_length: int | None
    """``<architecture>.context_length``: the context the model was trained with."""


# GGUF value types (gguf.md): fixed-size scalars by struct format, then string and array.
_SCALARS: Final = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING: Final = 8
_ARRAY: Final = 9


class _Truncated(Exception):
    """The file ends inside its metadata."""


class _HeaderReader:
    """Little-endian GGUF values, never reading past the end of the file (a corrupt length
    must not become a huge allocation)."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._size = os.fstat(handle.fileno()).st_size

    def take(self, size: int) -> bytes:
        if size > self._size - self._handle.tell():
            raise _Truncated
        return self._handle.read(size)

    def number(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        return self.take(self.number("<Q")).decode("utf-8", "replace")

    def value(self, kind: int) -> Any:
        """One value; arrays (the tokenizer's vocabulary) are skipped, giving ``None``."""
        if kind in _SCALARS:
            return self.number(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY:
            raise ValueError(f"unknown metadata value type {kind}")
        item, count = self.number("<I"), self.number("<Q")
        if item in _SCALARS:
            self.take(struct.calcsize(_SCALARS[item]) * count)
        else:
            for _ in range(count):
                self.value(item)
        return None


def read_gguf(path: Path) -> GgufInfo:
    """Read the model's name and training context from the GGUF's key/value header.

    llama.cpp only reports them once the model is loaded, but the context size must be
    chosen before. The reader stops as soon as it has both, which in files written by
    llama.cpp's converter is before the large tokenizer arrays.
    """
    architecture: object = None
    name: object = None
    lengths: dict[str, object] = {}
    try:
        with path.open("rb") as handle:
            header = _HeaderReader(handle)
            header.take(4)  # the magic, checked by check_gguf
            version, _tensors, pairs = struct.unpack("<IQQ", header.take(20))
            if version < 2:
                raise ValueError(f"GGUF version {version} predates 64-bit sizes")
            for _ in range(pairs):
                key = header.string()
                value = header.value(header.number("<I"))
                if key == "general.architecture":
                    architecture = value
                elif key == "general.name":
                    name = value
                elif key.endswith(".context_length"):
                    lengths[key] = value
                if name is not None and f"{architecture}.context_length" in lengths:
                    break
    except _Truncated:
        raise ModelError(
            f"{path}: the file ends inside its GGUF header: it is truncated. Re-download it."
        ) from None
    except (ValueError, struct.error) as exc:
        raise ModelError(f"{path}: the GGUF header is corrupt ({exc}). Re-download it.") from exc
    context = lengths.get(f"{architecture}.context_length")
    return GgufInfo(
        name=name if isinstance(name, str) and name else None,
        context_length=context if isinstance(context, int) and context > 0 else None,
    )


def _gpu_layers(requested: int | None) -> int:
    """``requested`` when this xllamacpp build sees a GPU, else 0 (with a warning if a
    number was asked for). Auto (``None``) is as many layers as fit (-1)."""
    if requested == 0:
        return 0
    import xllamacpp

    gpu = {
        xllamacpp.ggml_backend_dev_type.GGML_BACKEND_DEVICE_TYPE_GPU,
        xllamacpp.ggml_backend_dev_type.GGML_BACKEND_DEVICE_TYPE_IGPU,
    }
    devices = xllamacpp.get_device_info()
    if any(device["type"] in gpu for device in devices):
        return -1 if requested is None else requested
    if requested is None:
        return 0
    _log.warning(
        "n_gpu_layers=%d asks for GPU offload, but this xllamacpp build has no GPU backend "
        "(devices: %s); running on the CPU. Install xllamacpp's CUDA wheel to offload.",
        requested,
        ", ".join(str(device["name"]) for device in devices),
    )
    return 0


def _params(path: Path, settings: LlamaSettings, n_ctx: int, api_key: str) -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = 1  # one call at a time: the whole context is this call's
    params.n_batch = params.n_ubatch = _PROMPT_BATCH
    params.warmup = False  # an empty decode at load time; the first answer does the same
    params.cache_ram_mib = 0  # no host-memory prompt cache beside the model's own
    if settings.n_threads is not None:
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = settings.n_threads
    params.n_gpu_layers = _gpu_layers(settings.n_gpu_layers)
    params.split_mode = xllamacpp.llama_split_mode.LLAMA_SPLIT_MODE_NONE
    params.main_gpu = settings.main_gpu
    # Fitting loads the model an extra time (seconds on a laptop) to size what is left
    # unset; only "as many layers as fit" (-1) is, the context is always given.
    params.fit_params = params.n_gpu_layers == -1
    # Without layers on the GPU, llama.cpp would still send large prompt batches to a
    # CUDA device; keep off the GPU entirely, it is timing candidates.
    params.no_op_offload = params.n_gpu_layers == 0
    params.verbosity = _VERBOSITY_INFO if _log.isEnabledFor(logging.DEBUG) else _VERBOSITY_ERRORS
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # any free port
    params.api_keys = [api_key]
    params.ui = False
    params.endpoint_slots = False
    params.endpoint_metrics = True  # behind the key; load uses it to see the loop run
    return params


class LlamaCppModel:
    """A GGUF model served by llama.cpp inside this process (see the module docstring)."""

    def __init__(
        self,
        server: Any,
        name: str,
        context_tokens: int,
        *,
        on_gpu: bool = False,
        gpu_turn: GpuTurn | None = None,
    ) -> None:
        self._server = server
        self._name = name
        self._context_tokens = context_tokens
        self._on_gpu = on_gpu
        self._gpu_turn = gpu_turn if on_gpu else None
        """Taken around each answer when the model runs on the GPU and shares it."""
        self._lock = threading.Lock()
        """Held from a call's start until its native call returns, abandoned or not."""

    @classmethod
    def load(
        cls,
        path: Path,
        settings: LlamaSettings,
        *,
        name: str | None = None,
        gpu_turn: GpuTurn | None = None,
    ) -> LlamaCppModel:
        """Load ``path`` with its own chat template.

        The context is ``settings.n_ctx``, or else the model's training context capped at
        :data:`MAX_AUTO_CONTEXT`. ``name`` defaults to the GGUF's ``general.name``, then the
        file name. ``gpu_turn`` is what each answer holds while the model is on the GPU
        (the verifier's GPU lock); without one a GPU model answers whenever asked.
        """
        check_gguf(path)
        info = read_gguf(path)
        n_ctx = settings.n_ctx or min(info.context_length or MAX_AUTO_CONTEXT, MAX_AUTO_CONTEXT)
        import xllamacpp

        params = _params(path, settings, n_ctx, secrets.token_urlsafe(32))
        try:
            server = xllamacpp.Server(params)
            # The server's task loop starts just after the constructor returns; a server
            # dropped before it runs waits forever for it to stop. Metrics are answered by
            # that loop, so once they come the model can be dropped at any time.
            server.handle_metrics()
        except RuntimeError as exc:
            raise ModelError(
                f"{path}: llama.cpp cannot load this model (its log on stderr says why). "
                "The file is corrupt, truncated or of an architecture this xllamacpp does not "
                "support: re-download it or upgrade xllamacpp. A large model may also not fit "
                f"in memory with a context of {n_ctx} tokens: lower the n_ctx setting."
            ) from exc
        on_gpu = params.n_gpu_layers != 0
        _log.debug(
            "loaded %s (context %d, %s) on %s",
            path, n_ctx, "GPU" if on_gpu else "CPU", server.listening_address,
        )  # fmt: skip
        name = name or info.name or path.stem
        return cls(server, name, n_ctx, on_gpu=on_gpu, gpu_turn=gpu_turn)

    @property
    def name(self) -> str:
        return self._name

    @property
    def context_tokens(self) -> int:
        return self._context_tokens

    @property
    def on_gpu(self) -> bool:
        """Whether llama.cpp runs (some of) the model's layers on a GPU."""
        return self._on_gpu

    @property
    def address(self) -> str:
        """The native server's loopback HTTP address; it answers only with the secret key."""
        return str(self._server.listening_address)

    def count_tokens(self, text: str) -> int:
        """An estimate: xllamacpp has no tokenizer call, and asking the server's
        ``/tokenize`` over HTTP for every budget check would cost a round trip each.
        Against Qwen2.5-Coder's tokenizer it gives 1.0-1.1 times the true count for the
        bundled CUDA/C++ examples and 1.3 times for prose, so budgets stay on the safe side;
        a prompt that still overflows is refused by llama.cpp, naming n_ctx."""
        return approx_token_count(text)

    def generate(
        self,
        messages: Sequence[ChatMessage],
        sampling: Sampling,
        *,
        on_token: TokenSink | None = None,
        cancel: threading.Event | None = None,
        deadline: Deadline = NO_DEADLINE,
    ) -> Completion:
        watch = StopWatch(on_token=on_token, cancel=cancel, deadline=deadline)
        with ExitStack() as turn:
            if self._gpu_turn is not None and not turn.enter_context(
                self._gpu_turn(deadline, cancel)
            ):
                return watch.finish(watch.interrupt() or FinishReason.TIMEOUT)
            while True:
                early = watch.interrupt()
                if early is not None:
                    return watch.finish(early)
                if self._lock.acquire(timeout=watch.wait_s(_POLL_S)):
                    break
            # The turn ends when llama.cpp has stopped, which an interrupted answer does
            # not wait for: the native call hands it back itself.
            turn_over = turn.pop_all().close
        call = _NativeCall(self._server, _request(messages, sampling), self._lock, turn_over)
        threading.Thread(target=call.run, name="regrapht-llama", daemon=True).start()
        try:
            return self._follow(call, watch)
        finally:
            call.abandon()  # an interrupted or failed call stops at its next chunk

    def _follow(self, call: _NativeCall, watch: StopWatch) -> Completion:
        """Pass the call's pieces on until it ends or the caller is interrupted."""
        reason = FinishReason.STOP
        while True:
            interrupted = watch.interrupt()
            if interrupted is not None:
                return watch.finish(interrupted)
            try:
                chunk = call.chunks.get(timeout=watch.wait_s(_POLL_S))
            except queue.Empty:
                continue
            if chunk is None:
                return watch.finish(reason)
            if "error" in chunk or "code" in chunk:
                raise self._error(chunk)
            for choice in chunk.get("choices") or ():
                watch.add(str(choice.get("delta", {}).get("content") or ""))
                if choice.get("finish_reason") == "length":
                    reason = FinishReason.LENGTH

    def _error(self, chunk: Mapping[str, Any]) -> ModelError:
        """What an error chunk (llama.cpp's ``{"error": ...}``, xllamacpp's flat one) means."""
        error = chunk.get("error", chunk)
        if error.get("type") == "exceed_context_size_error":
            return ModelError(
                f"{self._name}: the prompt is {error.get('n_prompt_tokens')} tokens, more than "
                f"the context of {error.get('n_ctx')}. Shorten the prompt or raise the "
                "context size setting (n_ctx)."
            )
        return ModelError(f"{self._name}: llama.cpp failed ({error.get('message', error)}).")


def _request(messages: Sequence[ChatMessage], sampling: Sampling) -> dict[str, Any]:
    request: dict[str, Any] = {
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "max_tokens": sampling.max_tokens,
        "temperature": sampling.temperature,
        "stop": list(sampling.stop),
        "stream": True,
        "return_progress": True,  # chunks while the prompt is read: chances to stop
    }
    if sampling.seed is not None:
        request["seed"] = sampling.seed
    return request


class _NativeCall:
    """One blocking native call on its own thread, whose chunks the caller reads.

    The queue ends with ``None``; an exception the binding raises is put before it as an
    error chunk. The model's lock, taken by the caller, is released when the call returns,
    and then the GPU turn, if any, is handed back (``turn_over``).
    """

    def __init__(
        self,
        server: Any,
        request: dict[str, Any],
        lock: threading.Lock,
        turn_over: Callable[[], None],
    ) -> None:
        self._server = server
        self._request = request
        self._lock = lock
        self._turn_over = turn_over
        self._abandoned = threading.Event()
        self.chunks: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()

    def abandon(self) -> None:
        """Stop at the next chunk; nobody reads the queue any more."""
        self._abandoned.set()

    def _on_chunk(self, chunk: dict[str, Any]) -> bool:
        if self._abandoned.is_set():
            return True
        self.chunks.put(chunk)
        return False

    def run(self) -> None:
        try:
            self._server.handle_chat_completions(self._request, self._on_chunk)
        except Exception as exc:  # reported to the caller, who raises ModelError
            self.chunks.put({"code": 500, "message": f"{type(exc).__name__}: {exc}"})
        finally:
            self.chunks.put(None)
            self._lock.release()
            self._turn_over()
