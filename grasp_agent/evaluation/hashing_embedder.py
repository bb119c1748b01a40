"""A cheap, deterministic stand-in embedder for scale benchmarks: feature hashing of lower-cased words.

Each word adds +1 or -1 to one of `dimension` coordinates, both chosen by a keyed blake2b digest of the word
(stable across processes and machines, unlike Python's salted `hash()`); the sum is L2-normalised. Texts that
share words get a positive cosine, so vector indexes, anchor linking and dense rescoring do real work on it;
what it does not have is semantics, so retrieval quality measured with it means nothing. Latency and memory do.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import EmbeddingError

HASHING_DIMENSION = 384  # MiniLM's, so index and vector sizes match the default model's
_WORD = re.compile(r"\w+")
_HASH_KEY = b"grasp-hashing-v1"
_MAX_CACHED_WORDS = 1 << 20  # bounds the per-instance word cache (synthetic vocabularies are ~30k words)


class HashingEmbedder(GraspEmbedder):
    def __init__(self, dimension: int = HASHING_DIMENSION, max_tokens: int | None = None) -> None:
        if dimension < 2:
            raise EmbeddingError(f"hashing dimension must be at least 2; got {dimension}")
        if max_tokens is not None and max_tokens < 1:
            raise EmbeddingError(f"max_tokens must be at least 1 or None; got {max_tokens}")
        super().__init__()
        self._dimension = dimension
        self._max_tokens = max_tokens
        self._buckets: dict[str, int] = {}  # word -> signed bucket (+/-(index + 1))

    @property
    def model_id(self) -> str:
        cut = f":max{self._max_tokens}" if self._max_tokens is not None else ""
        return f"hashing:{self._dimension}{cut}"

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def max_tokens(self) -> int | None:
        return self._max_tokens

    def with_max_tokens(self, max_tokens: int) -> HashingEmbedder:
        return HashingEmbedder(self._dimension, max_tokens)

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def _bucket(self, word: str) -> int:
        bucket = self._buckets.get(word)
        if bucket is None:
            digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8, key=_HASH_KEY).digest(), "little")
            bucket = (digest % self._dimension + 1) * (1 if (digest >> 63) & 1 else -1)
            if len(self._buckets) >= _MAX_CACHED_WORDS:
                self._buckets.clear()
            self._buckets[word] = bucket
        return bucket

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32, unit rows; a text without words maps to the first basis vector."""
        vectors = np.zeros((len(texts), self._dimension), dtype=np.float32)
        rows: list[int] = []
        buckets: list[int] = []
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            if self._max_tokens is not None:
                words = words[: self._max_tokens]
            rows.extend([row] * len(words))
            buckets.extend(self._bucket(word) for word in words)
        if buckets:
            signed = np.asarray(buckets, dtype=np.int64)
            np.add.at(
                vectors, (np.asarray(rows, dtype=np.int64), np.abs(signed) - 1), np.sign(signed).astype(np.float32)
            )
        norms = np.linalg.norm(vectors, axis=1)
        empty = norms == 0  # no words, or every word cancelled out
        vectors[empty, 0] = 1.0
        norms[empty] = 1.0
        unit: np.ndarray = vectors / norms[:, None]
        return unit
