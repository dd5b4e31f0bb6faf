"""Real parts for the model tests: the embedded GGUF, one loaded model, one real server."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from regrapht_core.model.embedded import DEFAULT_EMBEDDED, EMBEDDED, embedded_path
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.settings import LlamaSettings


@pytest.fixture(scope="session")
def embedded_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return embedded_path(
        EMBEDDED[DEFAULT_EMBEDDED], cache_dir=tmp_path_factory.mktemp("model-cache")
    )


@pytest.fixture(scope="session")
def small_model(embedded_gguf: Path) -> LlamaCppModel:
    """The embedded model with the default context (the GGUF's, capped), on 2 threads."""
    return LlamaCppModel.load(embedded_gguf, LlamaSettings(n_threads=2))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def unused_port() -> int:
    """A loopback port nothing listens on (for "server down")."""
    return _free_port()


_SERVE = """
import signal, sys, xllamacpp

params = xllamacpp.CommonParams()
params.model.path = sys.argv[1]
params.port = int(sys.argv[2])
params.model_alias = {"qwen2.5-coder-0.5b"}
params.n_ctx = 2048
params.n_parallel = 1
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 2
params.n_gpu_layers = 0
params.fit_params = False
params.warmup = False
params.cache_ram_mib = 0
params.verbosity = 1
server = xllamacpp.Server(params)
signal.pause()  # until terminated
"""


@pytest.fixture(scope="session")
def llama_server(embedded_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's HTTP server (xllamacpp's) in a child process on a free loopback port,
    serving the embedded model as ``qwen2.5-coder-0.5b`` without an API key; yields its base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-c", _SERVE, str(embedded_gguf), str(port)],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:  # answers 503 while the model loads
                with urllib.request.urlopen(f"{base}/models", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama.cpp's server did not start:\n{log.read_text()[-2000:]}")
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
