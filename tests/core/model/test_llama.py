"""The llama.cpp backend against the real embedded GGUF (short, seeded generations)."""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import struct
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.errors import ModelError
from regrapht_core.model.llama import (
    MAX_AUTO_CONTEXT,
    GgufInfo,
    LlamaCppModel,
    _params,
    read_gguf,
)
from regrapht_core.model.protocol import ChatMessage, FinishReason, Sampling
from regrapht_core.model.settings import LlamaSettings
from regrapht_core.verify.gpu_lock import GpuLock

xllamacpp = pytest.importorskip("xllamacpp")  # the GPU machine's `make gpu-check` has no wheel

ASK = [ChatMessage("user", "Write a CUDA kernel that adds two float arrays.")]
LONG_PROMPT = [ChatMessage("user", "y[i] = a * x[i] + y[i];\n" * 300)]
"""About 3,600 tokens: seconds of prompt reading on a laptop CPU."""


def test_seeded_generation_is_repeatable_and_streams(small_model: LlamaCppModel) -> None:
    pieces: list[str] = []
    first = small_model.generate(ASK, Sampling(16, temperature=0.8, seed=7), on_token=pieces.append)
    again = small_model.generate(ASK, Sampling(16, temperature=0.8, seed=7))
    assert first.text.strip()
    assert first.text == again.text
    assert "".join(pieces) == first.text
    assert first.tokens == len(pieces) == 16
    assert first.finish_reason is FinishReason.LENGTH
    assert first.first_token_s is not None
    assert first.tokens_per_s is not None


def test_stop_sequence_ends_the_answer(small_model: LlamaCppModel) -> None:
    free = small_model.generate(ASK, Sampling(12, seed=1))
    stop = " " + free.text.split()[3]  # a word the model says anyway: the stop cuts there
    done = small_model.generate(ASK, Sampling(12, seed=1, stop=(stop,)))
    assert done.finish_reason is FinishReason.STOP
    assert done.text
    assert done.text == free.text[: free.text.index(stop)]


def test_metadata_comes_from_the_gguf(small_model: LlamaCppModel, embedded_gguf: Path) -> None:
    assert "Qwen2.5 Coder 0.5B" in small_model.name
    trained = read_gguf(embedded_gguf).context_length
    assert trained is not None
    assert trained > MAX_AUTO_CONTEXT  # 32k: the default context is the cap
    assert small_model.context_tokens == MAX_AUTO_CONTEXT
    assert 0 < small_model.count_tokens("__global__ void k() {}") < 20


def test_an_explicit_context_wins_and_a_longer_prompt_names_the_setting(
    embedded_gguf: Path,
) -> None:
    tiny = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=256, n_threads=2))
    assert tiny.context_tokens == 256
    with pytest.raises(ModelError, match=r"more than the context of 256\..*\(n_ctx\)"):
        tiny.generate([ChatMessage("user", "float x = 1.0f; " * 100)], Sampling(8))
    assert tiny.generate(ASK, Sampling(2, seed=0)).tokens == 2  # still usable


def _decodes(model: LlamaCppModel) -> int:
    """llama.cpp's count of decode steps (one per generated token), from its metrics."""
    metrics = model._server.handle_metrics()
    found = re.search(r"^llamacpp:n_decode_total (\S+)$", metrics, re.MULTILINE)
    assert found is not None
    return int(float(found[1]))


def test_cancellation_stops_generation_within_a_second(small_model: LlamaCppModel) -> None:
    cancel = threading.Event()
    started = threading.Event()
    cancelled_at: list[float] = []

    def cancel_soon() -> None:
        started.wait(30)
        time.sleep(0.2)
        cancelled_at.append(time.monotonic())
        cancel.set()

    canceller = threading.Thread(target=cancel_soon)
    canceller.start()
    decoded = _decodes(small_model)
    done = small_model.generate(
        ASK, Sampling(2000, seed=3), on_token=lambda _: started.set(), cancel=cancel
    )
    returned_at = time.monotonic()
    canceller.join()
    assert done.finish_reason is FinishReason.CANCELLED
    assert 0 < done.tokens < 2000
    assert returned_at - cancelled_at[0] < 1.0
    after = small_model.generate(ASK, Sampling(4, seed=0))  # waits for the abandoned call
    assert after.tokens == 4
    # The native side stopped too: a few more tokens, not the 2000 asked for.
    assert _decodes(small_model) - decoded < done.tokens + after.tokens + 10


def test_cancellation_interrupts_reading_a_long_prompt(small_model: LlamaCppModel) -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    decoded = _decodes(small_model)
    timer.start()
    done = small_model.generate(LONG_PROMPT, Sampling(8), cancel=cancel)
    timer.join()
    assert done.finish_reason is FinishReason.CANCELLED
    assert done.tokens == 0
    assert done.total_s < 1.3
    after = small_model.generate(ASK, Sampling(4, seed=0))  # waits for the abandoned call
    assert after.tokens == 4
    # llama.cpp reads a prompt 512 tokens a step: all of it would take 8 steps, the
    # abandoned call stopped after the step it was in (a short prompt and 4 tokens: 4).
    assert _decodes(small_model) - decoded < 8 + 4


def test_a_call_waiting_for_the_model_keeps_its_deadline_and_cancel(
    small_model: LlamaCppModel,
) -> None:
    """While an abandoned call finishes its step, the next call waits, but not beyond its
    deadline and not after a cancel."""
    cancel = threading.Event()
    assert small_model._lock.acquire(timeout=60)  # as an abandoned call holds it
    try:
        late = small_model.generate(ASK, Sampling(4), deadline=Deadline.after(0.2))
        threading.Timer(0.2, cancel.set).start()
        cancelled = small_model.generate(ASK, Sampling(4), cancel=cancel)
    finally:
        small_model._lock.release()
    assert late.finish_reason is FinishReason.TIMEOUT
    assert late.total_s < 0.5
    assert cancelled.finish_reason is FinishReason.CANCELLED
    assert cancelled.total_s < 0.5


def test_already_cancelled_returns_at_once(small_model: LlamaCppModel) -> None:
    cancel = threading.Event()
    cancel.set()
    done = small_model.generate(ASK, Sampling(100), cancel=cancel)
    assert done.finish_reason is FinishReason.CANCELLED
    assert done.text == ""


def test_the_deadline_ends_generation_as_a_value(small_model: LlamaCppModel) -> None:
    done = small_model.generate(ASK, Sampling(2000, seed=3), deadline=Deadline.after(0.3))
    assert done.finish_reason is FinishReason.TIMEOUT
    assert done.total_s < 1.3


def test_the_listener_refuses_requests_without_the_key(small_model: LlamaCppModel) -> None:
    """The native server listens on loopback; its random key keeps other processes out."""
    address = urlsplit(small_model.address)
    assert address.hostname == "127.0.0.1"
    assert address.port is not None
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
    for headers in ({}, {"Authorization": "Bearer guessed"}):
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        try:
            connection.request("POST", "/v1/chat/completions", body, headers)
            response = connection.getresponse()
            assert response.status == 401
            assert b"Invalid API Key" in response.read()
        finally:
            connection.close()


def test_nothing_is_written_to_stdout_nor_stderr(
    embedded_gguf: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """stdout is the language server's JSON-RPC channel: loading must neither write to it
    nor hide what another thread writes meanwhile. Normal operation logs nothing either."""
    loading = threading.Event()

    def write_while_loading() -> None:
        loading.wait(10)
        for _ in range(50):
            os.write(1, b"rpc\n")
            time.sleep(0.002)

    writer = threading.Thread(target=write_while_loading)
    writer.start()
    loading.set()
    model = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=512, n_threads=2))
    writer.join()
    model.generate(ASK, Sampling(4, seed=0))
    captured = capfd.readouterr()
    assert captured.out == "rpc\n" * 50
    assert captured.err == ""


def test_debug_logging_lets_llama_cpp_tell_its_story_on_stderr(
    embedded_gguf: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    with caplog.at_level(logging.DEBUG, logger="regrapht_core.model.llama"):
        LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=256, n_threads=2))
    captured = capfd.readouterr()
    assert captured.out == ""
    assert "model loaded" in captured.err


_LIFETIME_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from pathlib import Path
    from regrapht_core.model.llama import LlamaCppModel
    from regrapht_core.model.settings import LlamaSettings

    def load():
        return LlamaCppModel.load(Path(sys.argv[1]), LlamaSettings(n_ctx=256, n_threads=2))

    def interrupt():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)

    load()  # and dropped at once
    print("dropped", flush=True)
    models = [load()]  # on the main thread, as the CLI does
    interrupt()
    terms = []
    signal.signal(signal.SIGTERM, lambda number, frame: terms.append(number))
    loader = threading.Thread(target=lambda: models.append(load()))  # a job thread
    loader.start()
    loader.join()
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.1)
    print("SIGTERM handled", terms == [signal.SIGTERM], flush=True)
    interrupt()
    """
)


def test_loading_leaves_signal_handlers_and_a_model_can_be_dropped_at_once(
    embedded_gguf: Path,
) -> None:
    """Ctrl+C must still interrupt the CLI, and the language server's SIGTERM handler
    (which removes scratch directories) must still run after a model loads on a job thread:
    older xllamacpp builds replaced both. A model dropped right after loading must not hang
    the process (the native server's stop would wait for a loop that has not started)."""
    done = subprocess.run(
        [sys.executable, "-c", _LIFETIME_SCRIPT, str(embedded_gguf)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "dropped",
        "KeyboardInterrupt",
        "SIGTERM handled True",
        "KeyboardInterrupt",
    ]


def test_gpu_layers_follow_the_build(embedded_gguf: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A CPU-only build runs on the CPU and says so once; a GPU build offloads quietly."""
    gpu = _build_sees_a_gpu()
    with caplog.at_level(logging.WARNING, logger="regrapht_core.model.llama"):
        model = LlamaCppModel.load(
            embedded_gguf, LlamaSettings(n_ctx=256, n_threads=2, n_gpu_layers=-1)
        )
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    if gpu:
        assert warnings == []
    else:
        assert len(warnings) == 1
        assert "no GPU backend" in warnings[0]
        assert "running on the CPU" in warnings[0]
    assert model.generate(ASK, Sampling(2, seed=0)).tokens == 2


def test_auto_offload_follows_the_build_without_a_word(
    embedded_gguf: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The default asks for no number: the GPU if this build sees one, else the CPU quietly."""
    with caplog.at_level(logging.WARNING, logger="regrapht_core.model.llama"):
        model = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=256, n_threads=2))
    assert [r for r in caplog.records if r.levelno == logging.WARNING] == []
    assert model.on_gpu == _build_sees_a_gpu()
    if not _build_sees_a_gpu():
        off = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=256, n_gpu_layers=0))
        assert not off.on_gpu


class _Turn:
    """A GPU turn that records when it was held and whether llama.cpp had stopped by then."""

    def __init__(self, model: list[LlamaCppModel], grant: bool = True, hold_s: float = 0.0):
        self.events: list[str] = []
        self._model = model
        self._grant = grant
        self._hold_s = hold_s

    @contextmanager
    def __call__(self, deadline: Deadline, cancel: threading.Event | None) -> Iterator[bool]:
        time.sleep(self._hold_s)  # another process's timing run, say
        self.events.append("taken")
        try:
            yield self._grant
        finally:
            busy = self._model[0]._lock.locked()  # the native call holds it until it returns
            self.events.append("handed back while llama.cpp ran" if busy else "handed back")


@pytest.fixture
def as_if_on_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loads as a GPU build would (-1 layers); llama.cpp with no GPU to fit keeps them on
    the CPU, so the turn-taking runs against the real native call."""
    monkeypatch.setattr("regrapht_core.model.llama._gpu_layers", lambda requested: -1)


def _turned_model(
    embedded_gguf: Path, n_ctx: int = 256, **turn: Any
) -> tuple[LlamaCppModel, _Turn]:
    holder: list[LlamaCppModel] = []
    recorder = _Turn(holder, **turn)
    model = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=n_ctx), gpu_turn=recorder)
    holder.append(model)
    return model, recorder


@pytest.mark.usefixtures("as_if_on_a_gpu")
def test_a_gpu_model_answers_inside_its_turn(embedded_gguf: Path) -> None:
    model, turn = _turned_model(embedded_gguf, hold_s=0.4)
    assert model.on_gpu
    done = model.generate(ASK, Sampling(8, seed=0))
    assert done.tokens == 8
    assert done.first_token_s is not None and done.first_token_s >= 0.4  # waited its turn
    assert turn.events == ["taken", "handed back"]


@pytest.mark.usefixtures("as_if_on_a_gpu")
def test_an_interrupted_gpu_answer_keeps_its_turn_until_llama_cpp_stops(
    embedded_gguf: Path,
) -> None:
    """Cancelled while reading a long prompt, the answer returns within a second, and the
    GPU is handed back only once the native call has stopped using it."""
    model, turn = _turned_model(embedded_gguf, n_ctx=4096)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    start = time.monotonic()
    done = model.generate(LONG_PROMPT, Sampling(64, seed=0), cancel=cancel)
    assert time.monotonic() - start < 1.5
    assert done.finish_reason is FinishReason.CANCELLED
    until = time.monotonic() + 30
    while len(turn.events) < 2 and time.monotonic() < until:
        time.sleep(0.05)
    assert turn.events == ["taken", "handed back"]
    assert model.generate(ASK, Sampling(2, seed=0)).tokens == 2  # and the next one gets it


@pytest.mark.usefixtures("as_if_on_a_gpu")
@pytest.mark.parametrize(
    ("interrupt", "reason"),
    [("cancel", FinishReason.CANCELLED), ("deadline", FinishReason.TIMEOUT)],
)
def test_a_gpu_model_refused_its_turn_answers_nothing(
    embedded_gguf: Path, interrupt: str, reason: FinishReason
) -> None:
    model, turn = _turned_model(embedded_gguf, grant=False)
    cancel = threading.Event()
    if interrupt == "cancel":
        cancel.set()
    deadline = Deadline(at=0.0) if interrupt == "deadline" else Deadline()
    done = model.generate(ASK, Sampling(8, seed=0), cancel=cancel, deadline=deadline)
    assert (done.finish_reason, done.tokens, done.text) == (reason, 0, "")
    assert turn.events == ["taken", "handed back"]


@pytest.mark.usefixtures("as_if_on_a_gpu")
def test_a_gpu_model_waits_for_the_verifiers_lock(embedded_gguf: Path, tmp_path: Path) -> None:
    """With the verifier's real lock: an answer starts only after a timing run is done."""
    lock = GpuLock("0", tmp_path)
    model = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=256), gpu_turn=lock.hold)
    timing = threading.Event()

    def time_a_candidate() -> None:
        with lock.hold(Deadline()) as held:
            assert held
            timing.set()
            time.sleep(0.5)

    runner = threading.Thread(target=time_a_candidate)
    runner.start()
    assert timing.wait(10)
    done = model.generate(ASK, Sampling(4, seed=0))
    runner.join()
    assert done.tokens == 4
    assert done.first_token_s is not None and done.first_token_s > 0.3
    assert lock.held_s > 0.5  # the run's hold and the answer's


@pytest.mark.usefixtures("as_if_on_a_gpu")
def test_a_gpu_model_stays_on_one_gpu(embedded_gguf: Path) -> None:
    """On a host of several GPUs the model must not spread onto the ones other workers
    time on: all layers on ``main_gpu``, none split."""
    params = _params(embedded_gguf, LlamaSettings(main_gpu=1), 256, "key")
    assert params.n_gpu_layers == -1
    assert params.split_mode == xllamacpp.llama_split_mode.LLAMA_SPLIT_MODE_NONE
    assert params.main_gpu == 1


def _build_sees_a_gpu() -> bool:
    kinds = xllamacpp.ggml_backend_dev_type
    return any(
        device["type"] in (kinds.GGML_BACKEND_DEVICE_TYPE_GPU, kinds.GGML_BACKEND_DEVICE_TYPE_IGPU)
        for device in xllamacpp.get_device_info()
    )


def test_missing_file_names_the_path_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "model.gguf"
    with pytest.raises(ModelError, match="model file not found") as caught:
        LlamaCppModel.load(missing, LlamaSettings())
    assert str(missing) in str(caught.value)
    assert "REGRAPHT_MODEL" in str(caught.value)


def test_a_directory_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not a file"):
        LlamaCppModel.load(tmp_path, LlamaSettings())


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"<html>404 Not Found</html>")
    with pytest.raises(ModelError, match="not a GGUF model file") as caught:
        LlamaCppModel.load(bogus, LlamaSettings())
    assert str(bogus) in str(caught.value)


def test_a_truncated_gguf_is_a_clear_error(embedded_gguf: Path, tmp_path: Path) -> None:
    """Cut inside the tokenizer's vocabulary: the header reader has what it needs, so it
    is llama.cpp that refuses the file."""
    truncated = tmp_path / "truncated.gguf"
    with embedded_gguf.open("rb") as source:
        truncated.write_bytes(source.read(1_000_000))
    with pytest.raises(ModelError, match="cannot load this model") as caught:
        LlamaCppModel.load(truncated, LlamaSettings(n_ctx=256))
    assert str(truncated) in str(caught.value)
    assert "re-download" in str(caught.value)


def _text(value: str) -> bytes:
    data = value.encode()
    return struct.pack("<Q", len(data)) + data


def _gguf(*pairs: tuple[str, int, bytes]) -> bytes:
    """A GGUF header with these key/value pairs (type codes from gguf.md) and no tensors."""
    body = b"".join(_text(key) + struct.pack("<I", kind) + value for key, kind, value in pairs)
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs)) + body


_ARCHITECTURE = ("general.architecture", 8, _text("llama"))
_VOCABULARY = ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + _text("a") + _text("b"))
_SCORES = ("tokenizer.ggml.scores", 9, struct.pack("<IQ2f", 6, 2, 0.5, 0.25))
_CONTEXT = ("llama.context_length", 4, struct.pack("<I", 2048))
_NAME = ("general.name", 8, _text("Tiny Coder"))


def test_the_header_reader_skips_arrays_to_the_name_and_context(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(_gguf(_ARCHITECTURE, _VOCABULARY, _SCORES, _CONTEXT, _NAME))
    assert read_gguf(path) == GgufInfo(name="Tiny Coder", context_length=2048)
    path.write_bytes(_gguf(_ARCHITECTURE, _VOCABULARY))
    assert read_gguf(path) == GgufInfo(name=None, context_length=None)


def test_a_broken_header_is_called_truncated_or_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(_gguf(_ARCHITECTURE, _VOCABULARY, _CONTEXT)[:-3])
    with pytest.raises(ModelError, match="truncated") as caught:
        LlamaCppModel.load(path, LlamaSettings())
    assert str(path) in str(caught.value)
    path.write_bytes(_gguf(("general.architecture", 77, b"")))
    with pytest.raises(ModelError, match="corrupt"):
        LlamaCppModel.load(path, LlamaSettings())
