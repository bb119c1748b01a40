"""The fallback reranker: cosine similarity of query and document embeddings from a `GraspEmbedder`.

Used when neither an LLM judge nor a cross-encoder is configured. It re-embeds the (rendered) documents
as given, so it can score text that no vector index holds, e.g. a document with its evidence paths appended.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.rerank.base import Reranker, check_scores


class BiEncoderReranker(Reranker):
    """Scores are dot products of the embedder's unit-length vectors, i.e. cosines in [-1, 1]."""

    def __init__(self, embedder: GraspEmbedder) -> None:
        self._embedder = embedder

    @property
    def model_id(self) -> str:
        return f"bi-encoder:{self._embedder.model_id}"

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        if not docs:
            return []
        vectors = self._embedder.embed_texts([query, *docs])  # (1 + len(docs), dimension), unit rows
        scores = vectors[1:] @ vectors[0]  # (len(docs),)
        return check_scores(np.asarray(scores, dtype=np.float64).tolist(), len(docs), self.model_id)


__all__ = ["BiEncoderReranker"]
