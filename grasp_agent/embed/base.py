"""The embedder interface every backend implements.

It extends neo4j-graphrag's `Embedder` (so any of ours drops into a graphrag retriever) with what bulk
ingestion needs: batches, the dimension, a stable model id for caching, and token counting for budgets.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

import numpy as np
from neo4j_graphrag.embeddings.base import Embedder

from grasp_agent.errors import EmbeddingError


class GraspEmbedder(Embedder):
    """Vectors are float32 and L2-normalized, so cosine similarity is a dot product."""

    @property
    @abstractmethod
    def model_id(self) -> str:
        """Stable identifier of model + settings that change vectors (used as the cache namespace)."""

    @property
    @abstractmethod
    def dimension(self) -> int: ...

    @abstractmethod
    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dimension), float32, unit length."""

    def count_tokens(self, text: str) -> int:
        """Tokens the model would see; backends with a tokenizer override this rough word count."""
        return len(text.split())

    @property
    def max_tokens(self) -> int | None:
        """Where texts are cut, in tokens; None when the backend does not say (a server's own limit)."""
        return None

    def with_max_tokens(self, max_tokens: int) -> GraspEmbedder:
        """A sibling embedder that truncates texts at `max_tokens` (its own model_id, so caches never mix).

        Per instance rather than per call, because the truncation changes vectors and so the cache key.
        """
        raise EmbeddingError(f"{type(self).__name__} cannot change its truncation; max_tokens {max_tokens} refused")

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.embed_texts([text])[0]]
