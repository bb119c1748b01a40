"""The SQLite vector cache: only misses reach the model, hits come back bit for bit."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder, cache_key
from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.packaged_models import minilm_model_dir
from grasp_agent.errors import EmbeddingError


class HashEmbedder(GraspEmbedder):
    """Deterministic 8-dim vectors from sha256 of the text; records every text it is asked for."""

    def __init__(self, dimension: int = 8, max_tokens: int = 512) -> None:
        super().__init__()
        self._dimension = dimension
        self._max_tokens = max_tokens
        self.calls: list[list[str]] = []

    @property
    def model_id(self) -> str:
        return f"hash:{self._dimension}:max{self._max_tokens}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def with_max_tokens(self, max_tokens: int) -> HashEmbedder:
        return HashEmbedder(self._dimension, max_tokens)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[: self._dimension], np.uint8) for t in texts]
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), self._dimension) + 1.0
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_only_misses_reach_the_inner_embedder(tmp_path: Path) -> None:
    inner = HashEmbedder()
    with CachedEmbedder(inner, tmp_path / "cache.sqlite") as cached:
        first = cached.embed_texts(["a", "b", "a"])
        assert inner.calls == [["a", "b"]]  # a repeated text is embedded once
        assert (cached.hits, cached.misses) == (1, 2)
        second = cached.embed_texts(["b", "c", "a"])
        assert inner.calls[-1] == ["c"]
        assert (cached.hits, cached.misses) == (3, 3)
    assert np.array_equal(first[1], second[0]) and np.array_equal(first[0], second[2])


def test_cache_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "cache.sqlite"
    with CachedEmbedder(HashEmbedder(), path) as cached:
        vectors = cached.embed_texts(["Seizure", "Renal cyst"])
    inner = HashEmbedder()
    with CachedEmbedder(inner, path) as reopened:
        assert np.array_equal(reopened.embed_texts(["Seizure", "Renal cyst"]), vectors)
        assert inner.calls == [] and reopened.hits == 2
        assert reopened.dimension == 8


def test_misses_go_in_chunks_each_committed(tmp_path: Path) -> None:
    inner = HashEmbedder()
    with CachedEmbedder(inner, tmp_path / "cache.sqlite", write_every=2) as cached:
        cached.embed_texts(["a", "b", "c", "d", "e"])
    assert inner.calls == [["a", "b"], ["c", "d"], ["e"]]


def test_model_id_and_truncation_are_separate_namespaces(tmp_path: Path) -> None:
    inner = HashEmbedder()
    with CachedEmbedder(inner, tmp_path / "cache.sqlite") as cached:
        cached.embed_texts(["a"])
        short = cached.with_max_tokens(64)
        assert short.model_id == "hash:8:max64"
        short.embed_texts(["a"])
        assert (short.hits, short.misses) == (0, 1)
        assert cache_key(cached.model_id, "a") != cache_key(short.model_id, "a")
        assert cache_key("m", "ab") != cache_key("ma", "b")


def test_empty_input_and_single_string(tmp_path: Path) -> None:
    with CachedEmbedder(HashEmbedder(), tmp_path / "cache.sqlite") as cached:
        assert cached.embed_texts([]).shape == (0, 8)
        with pytest.raises(EmbeddingError, match="one str"):
            cached.embed_texts("a")


def test_damaged_entries_are_embedded_again(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with CachedEmbedder(HashEmbedder(), path) as cached:
        good = cached.embed_texts(["a"])
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE vectors SET vector = ?", (b"\x00" * 5,))
    inner = HashEmbedder()
    with CachedEmbedder(inner, path) as cached:
        assert np.array_equal(cached.embed_texts(["a"]), good)
        assert inner.calls == [["a"]]


def test_a_model_changing_dimension_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with CachedEmbedder(HashEmbedder(8), path) as cached:
        cached.embed_texts(["a"])

    class Wider(HashEmbedder):
        @property
        def model_id(self) -> str:
            return "hash:8:max512"  # same id, other dimension: a model swapped behind one name

    with CachedEmbedder(Wider(16), path) as cached, pytest.raises(EmbeddingError, match="16-dim vectors"):
        cached.embed_texts(["b"])


def test_threads_share_one_cache(tmp_path: Path) -> None:
    inner = HashEmbedder()
    texts = [f"text {i}" for i in range(200)]
    with CachedEmbedder(inner, tmp_path / "cache.sqlite", write_every=7) as cached:
        results: list[np.ndarray] = []
        workers = [threading.Thread(target=lambda: results.append(cached.embed_texts(texts))) for _ in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert len(results) == 4 and all(np.array_equal(result, results[0]) for result in results)
        assert cached.hits + cached.misses == 800


def test_unwritable_cache_path_names_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(EmbeddingError, match="could not be opened"):
        CachedEmbedder(HashEmbedder(), blocker / "cache.sqlite")


def test_cached_minilm_vector_equals_a_fresh_one(tmp_path: Path) -> None:
    try:
        minilm_model_dir()
    except EmbeddingError as exc:
        pytest.skip(str(exc))
    fresh = LocalEmbedder("all-MiniLM-L6-v2")
    texts = ["Seizure", "Abnormality of the kidney", ""]
    with CachedEmbedder(fresh, tmp_path / "cache.sqlite") as cached:
        cached.embed_texts(texts)
    with CachedEmbedder(LocalEmbedder("all-MiniLM-L6-v2"), tmp_path / "cache.sqlite") as cached:
        assert np.array_equal(cached.embed_texts(texts), fresh.embed_texts(texts))
        assert (cached.hits, cached.misses) == (3, 0)
