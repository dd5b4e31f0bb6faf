"""The llama.cpp backend against the real embedded GGUF (short, seeded generations)."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.errors import ModelError
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.protocol import ChatMessage, FinishReason, Sampling
from regrapht_core.model.settings import LlamaSettings

ASK = [ChatMessage("user", "Write a CUDA kernel that adds two float arrays.")]


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
    assert "#include" in free.text  # what this model says first; the stop must cut it
    done = small_model.generate(ASK, Sampling(12, seed=1, stop=("#include",)))
    assert done.finish_reason is FinishReason.STOP
    assert "#include" not in done.text
    assert free.text.startswith(done.text)


def test_metadata_comes_from_the_gguf(small_model: LlamaCppModel) -> None:
    assert "135M" in small_model.name or "mollm2" in small_model.name.lower()
    assert small_model.context_tokens == 2048
    assert 0 < small_model.count_tokens("__global__ void k() {}") < 20


def test_cancellation_stops_generation_within_a_second(small_model: LlamaCppModel) -> None:
    cancel = threading.Event()
    started = threading.Event()
    cancelled_at: list[float] = []

    def on_token(_: str) -> None:
        if not started.is_set():
            started.set()

    def cancel_soon() -> None:
        started.wait(30)
        time.sleep(0.2)
        cancelled_at.append(time.monotonic())
        cancel.set()

    canceller = threading.Thread(target=cancel_soon)
    canceller.start()
    done = small_model.generate(ASK, Sampling(2000, seed=3), on_token=on_token, cancel=cancel)
    returned_at = time.monotonic()
    canceller.join()
    assert done.finish_reason is FinishReason.CANCELLED
    assert done.tokens < 2000
    assert returned_at - cancelled_at[0] < 1.0


def test_cancellation_interrupts_reading_a_long_prompt(small_model: LlamaCppModel) -> None:
    long_prompt = [ChatMessage("user", "y[i] = a * x[i] + y[i];\n" * 100)]
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    started = time.monotonic()
    timer.start()
    done = small_model.generate(long_prompt, Sampling(8), cancel=cancel)
    elapsed = time.monotonic() - started
    timer.join()
    assert done.finish_reason is FinishReason.CANCELLED
    assert done.tokens == 0
    assert elapsed < 1.2
    after = small_model.generate(ASK, Sampling(4, seed=0))  # the context is still usable
    assert after.tokens == 4


def test_already_cancelled_returns_at_once(small_model: LlamaCppModel) -> None:
    cancel = threading.Event()
    cancel.set()
    done = small_model.generate(ASK, Sampling(100), cancel=cancel)
    assert done.finish_reason is FinishReason.CANCELLED
    assert done.text == ""


def test_the_deadline_ends_generation_as_a_value(small_model: LlamaCppModel) -> None:
    done = small_model.generate(ASK, Sampling(2000, seed=3), deadline=Deadline.after(0.3))
    assert done.finish_reason is FinishReason.TIMEOUT
    assert done.total_s < 5.0


def test_prompt_longer_than_the_context_names_the_setting(small_model: LlamaCppModel) -> None:
    huge = [ChatMessage("user", "float x = 1.0f; " * 2000)]
    with pytest.raises(ModelError, match="n_ctx"):
        small_model.generate(huge, Sampling(8))


def test_nothing_is_written_to_stdout(
    embedded_gguf: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    model = LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=512, n_threads=2))
    model.generate(ASK, Sampling(4, seed=0))
    assert capfd.readouterr().out == ""


def test_loading_never_hides_other_threads_stdout(
    embedded_gguf: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The language server may answer a request while a model loads in another thread."""
    loading = threading.Event()

    def write_while_loading() -> None:
        loading.wait(10)
        for _ in range(50):
            os.write(1, b"rpc\n")
            time.sleep(0.002)

    writer = threading.Thread(target=write_while_loading)
    writer.start()
    loading.set()
    LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=512, n_threads=2))
    writer.join()
    captured = capfd.readouterr()
    assert captured.out == "rpc\n" * 50


def test_native_logs_go_to_logging(
    embedded_gguf: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    with caplog.at_level(logging.DEBUG, logger="regrapht_core.model.llama"):
        LlamaCppModel.load(embedded_gguf, LlamaSettings(n_ctx=512, n_threads=2))
    assert any(r.name == "regrapht_core.model.llama.native" for r in caplog.records)
    assert capfd.readouterr().err == ""


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
    truncated = tmp_path / "truncated.gguf"
    with embedded_gguf.open("rb") as source:
        truncated.write_bytes(source.read(1_000_000))
    with pytest.raises(ModelError, match="cannot load this model") as caught:
        LlamaCppModel.load(truncated, LlamaSettings(n_ctx=256))
    assert str(truncated) in str(caught.value)
    assert "re-download" in str(caught.value)
