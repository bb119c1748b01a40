"""The reranker interface and the pure `rerank` step.

A `Reranker` scores (query, document) pairs one by one (pointwise; higher is better). `rerank` applies one to
the head of a fused candidate list: it scores the first k candidates and returns their ids reordered, which is
the `reranker_order` that `grasp_agent.fusion.rrf.rerank_fusion` fuses back with the full fused order.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import TypeVar

from grasp_agent.errors import GraspError

Id = TypeVar("Id", bound=Hashable)


class RerankError(GraspError):
    """A reranker could not be built or returned unusable scores; the message names the value and what is allowed."""


class Reranker(ABC):
    """Pointwise relevance of documents to a query; implementations must not reorder or drop documents."""

    @property
    @abstractmethod
    def model_id(self) -> str:
        """Stable identifier of the method + model, e.g. 'llm-judge:llama-cpp:qwen2.5-0.5b'."""

    @abstractmethod
    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        """One score per document, in input order; higher means more relevant."""


def check_scores(scores: Sequence[float], documents: int, model_id: str) -> list[float]:
    """`scores` as floats, or an error when there is not one finite score for each of `documents` documents."""
    if len(scores) != documents:
        raise RerankError(
            f"reranker {model_id} returned {len(scores)} scores for {documents} documents; "
            "allowed: exactly one score per document"
        )
    checked = [float(value) for value in scores]
    bad = [(index, value) for index, value in enumerate(checked) if not math.isfinite(value)]
    if bad:
        raise RerankError(
            f"reranker {model_id} returned non-finite scores (index, value) {bad[:5]}; allowed: finite floats"
        )
    return checked


def rerank(query: str, candidates: Sequence[tuple[Id, str]], reranker: Reranker, k: int) -> list[Id]:
    """Ids of the first `k` candidates, ordered by the reranker's score (descending).

    Candidates beyond `k` are neither scored nor returned: the caller fuses this head order with the full
    fused order (`rerank_fusion`), where the tail keeps its fused rank. Ties keep the input order, so equal
    scores never reorder what fusion already ranked.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise RerankError(f"rerank depth k {k!r} refused; allowed: an int >= 1")
    head = list(candidates[:k])
    if not head:
        return []
    scores = check_scores(reranker.score(query, [doc for _, doc in head]), len(head), reranker.model_id)
    # sorted() is stable, so equal scores keep the input (fused) order.
    order = sorted(range(len(head)), key=lambda index: -scores[index])
    return [head[index][0] for index in order]


__all__ = ["RerankError", "Reranker", "check_scores", "rerank"]
