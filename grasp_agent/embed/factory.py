"""Builds the configured embedder: the backend from Settings, behind the SQLite vector cache."""

from __future__ import annotations

from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.openai_compatible import OpenAICompatibleEmbedder
from grasp_agent.embed.packaged_models import MINILM, MPNET
from grasp_agent.embed.vector_pack import PACKAGED_PACKS_DIR, PackShelf
from grasp_agent.errors import ConfigError

_LOCAL_MODELS = {"minilm": MINILM, "mpnet": MPNET}


def models_cache_dir(settings: Settings) -> Path:
    return settings.resolved_models_cache_dir


def embedding_cache_path(settings: Settings) -> Path:
    return settings.embedding_cache_path or settings.project_root / ".grasp" / "embeddings.sqlite"


def make_backend(settings: Settings) -> GraspEmbedder:
    """The uncached embedder that `settings.embedder` names."""
    if settings.embedder == "openai":
        if not settings.embedder_url or not settings.embedder_model:
            raise ConfigError(
                f"embedder 'openai' needs GRASP_EMBEDDER_URL and GRASP_EMBEDDER_MODEL; got url "
                f"{settings.embedder_url!r}, model {settings.embedder_model!r}"
            )
        # The server keeps its own context limit; callers wanting a cut take with_max_tokens(n).
        return OpenAICompatibleEmbedder(
            settings.embedder_url,
            settings.embedder_model,
            api_key=settings.embedder_api_key,
            batch_size=settings.embed_batch_size,
        )
    return LocalEmbedder(
        _LOCAL_MODELS[settings.embedder],
        batch_size=settings.embed_batch_size,
        max_tokens=settings.embed_max_tokens,
        models_cache_dir=models_cache_dir(settings),
        backend=settings.embed_backend,
    )


def make_embedder(settings: Settings) -> CachedEmbedder:
    """The configured backend wrapped in the vector cache at `embedding_cache_path(settings)`, with the vector
    packs (packaged, or GRASP_VECTOR_PACKS_DIR) unless GRASP_VECTOR_PACKS=false."""
    packs = PackShelf(settings.vector_packs_dir or PACKAGED_PACKS_DIR) if settings.vector_packs else None
    return CachedEmbedder(make_backend(settings), embedding_cache_path(settings), packs=packs)
