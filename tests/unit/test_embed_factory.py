"""Settings -> embedder: the backend named by GRASP_EMBEDDER, behind the vector cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from grasp_agent.config import Settings
from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.embed.factory import embedding_cache_path, make_embedder, models_cache_dir
from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.openai_compatible import OpenAICompatibleEmbedder
from grasp_agent.embed.packaged_models import minilm_model_dir
from grasp_agent.errors import ConfigError, EmbeddingError


def test_embedding_settings_come_from_grasp_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRASP_EMBEDDER", "openai")
    monkeypatch.setenv("GRASP_EMBEDDER_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("GRASP_EMBEDDER_API_KEY", "sk-secret")
    monkeypatch.setenv("GRASP_EMBED_MAX_TOKENS", "64")
    settings = Settings()
    assert settings.embedder == "openai" and settings.embed_max_tokens == 64
    assert settings.embedder_api_key is not None and "sk-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("field", "value"),
    [("embedder", "bert"), ("embed_max_tokens", 513), ("embed_max_tokens", 7), ("embed_batch_size", 0)],
)
def test_bad_embedding_settings_are_rejected(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        Settings(**{field: value})


def test_default_paths(tmp_path: Path) -> None:
    settings = Settings(project_root=tmp_path, embedding_cache_path=None, models_cache_dir=None)
    assert embedding_cache_path(settings) == tmp_path / ".grasp" / "embeddings.sqlite"
    assert models_cache_dir(settings) == Path.home() / ".cache" / "grasp" / "models"


def test_minilm_is_the_cached_default(tmp_path: Path) -> None:
    try:
        minilm_model_dir()
    except EmbeddingError as exc:
        pytest.skip(str(exc))
    settings = Settings(embedder="minilm", embedding_cache_path=tmp_path / "e.sqlite", embed_max_tokens=512)
    with make_embedder(settings) as embedder:
        assert isinstance(embedder, CachedEmbedder) and isinstance(embedder.inner, LocalEmbedder)
        assert embedder.model_id == "local:all-MiniLM-L6-v2:max512"
        assert embedder.with_max_tokens(64).model_id == "local:all-MiniLM-L6-v2:max64"
        assert embedder.embed_texts(["Seizure"]).shape == (1, 384)
    assert (tmp_path / "e.sqlite").is_file()


def test_openai_needs_url_and_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="GRASP_EMBEDDER_URL and GRASP_EMBEDDER_MODEL"):
        make_embedder(Settings(embedder="openai", embedder_url=None, embedding_cache_path=tmp_path / "e.sqlite"))
    settings = Settings(
        embedder="openai",
        embedder_url="http://127.0.0.1:9/v1",
        embedder_model="Qwen/Qwen3-Embedding-4B",
        embedding_cache_path=tmp_path / "e.sqlite",
    )
    with make_embedder(settings) as embedder:  # building it contacts nobody
        assert isinstance(embedder.inner, OpenAICompatibleEmbedder)
        assert embedder.model_id == "openai:Qwen/Qwen3-Embedding-4B"
