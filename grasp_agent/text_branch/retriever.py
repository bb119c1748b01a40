"""The text branch as one retriever: mFAR multi-field search, plus the plain baselines from the same indexes.

`search` unions each (field, scorer) key's top candidates, scores them with the query-conditioned field
weights (uniform until trained) and returns the top k. The baselines are BM25 on the whole document, dense
single-vector retrieval on the document (VSS) and their RRF; they read the same indexes, so comparisons are
between scoring methods, not between corpora.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.fusion.rrf import weighted_rrf
from grasp_agent.text_branch.bm25_index import DEFAULT_TOP_K, LexicalIndex
from grasp_agent.text_branch.candidates import (
    DEFAULT_CANDIDATES,
    WeightExample,
    field_candidates,
    weight_examples,
)
from grasp_agent.text_branch.dense_fields import DenseFieldIndex
from grasp_agent.text_branch.field_weights import FieldWeightModel
from grasp_agent.text_branch.fields import NodeId, ScoredNodes, TextBranchError
from grasp_agent.text_branch.multifield import FieldKey


@dataclass(frozen=True)
class TextRanking:
    method: str  # "mfar", "bm25", "vss" or "bm25+vss"
    ids: tuple[NodeId, ...]
    scores: tuple[float, ...]
    weights: dict[FieldKey, float] = field(default_factory=dict)  # the field weights this query got (mfar)
    timings_ms: dict[str, float] = field(default_factory=dict)


class TextBranch:
    def __init__(
        self,
        lexical: LexicalIndex,
        dense: DenseFieldIndex | None,
        weights: FieldWeightModel,
        embedder: GraspEmbedder,
        candidates_per_key: int = DEFAULT_CANDIDATES,
    ) -> None:
        dense_keys = [name for name, scorer in weights.keys if scorer == "dense"]
        if dense_keys and dense is None:
            raise TextBranchError(f"field weights use dense keys {dense_keys} but no dense index was given")
        if weights.model_id != embedder.model_id:
            raise TextBranchError(
                f"field weights expect query vectors of {weights.model_id!r}; the embedder is {embedder.model_id!r}"
            )
        self._lexical = lexical
        self._dense = dense
        self._weights = weights
        self._embedder = embedder
        self._candidates = candidates_per_key

    @property
    def keys(self) -> tuple[FieldKey, ...]:
        return self._weights.keys

    @property
    def node_ids(self) -> tuple[NodeId, ...]:
        """Every node the indexes hold."""
        return self._lexical.ids

    def labels_of(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        """Node type of each id the indexes hold (what the reranker's document lookup needs)."""
        return self._lexical.labels_of(ids)

    def weight_examples(
        self, queries: Sequence[str], golds: Sequence[Collection[NodeId]], keys: Sequence[FieldKey] | None = None
    ) -> list[WeightExample]:
        """Training examples for the field weights: each query's per-key candidates (this branch's keys, or
        `keys`, e.g. with the whole document added) and its gold ids."""
        vectors = np.asarray(self._embedder.embed_texts(list(queries)), dtype=np.float32)
        return weight_examples(
            keys or self.keys, queries, vectors, golds, lexical=self._lexical, dense=self._dense, k=self._candidates
        )

    @property
    def model_id(self) -> str:
        """The embedder whose query vectors the field weights read."""
        return self._embedder.model_id

    @property
    def embedder(self) -> GraspEmbedder:
        return self._embedder

    @property
    def dense(self) -> DenseFieldIndex | None:
        return self._dense

    @property
    def lexical(self) -> LexicalIndex:
        return self._lexical

    def search(self, query: str, k: int = DEFAULT_TOP_K, node_type: str | None = None) -> TextRanking:
        """mFAR: the top k nodes (of `node_type` when given) by weighted, normalized per-field scores."""
        timings: dict[str, float] = {}
        start = time.perf_counter()
        vector = np.asarray(self._embedder.embed_query(query), dtype=np.float32)
        timings["embedding"] = _since(start)
        start = time.perf_counter()
        candidates = field_candidates(
            self.keys,
            query,
            vector,
            lexical=self._lexical,
            dense=self._dense,
            k=max(self._candidates, k),
            node_type=node_type,
        )
        timings["fields"] = _since(start)
        start = time.perf_counter()
        weights = self._weights.weight_matrix(vector[None, :])[0]
        ranked = candidates.rank(weights, k)
        timings["combine"] = _since(start)
        return TextRanking(
            "mfar", ranked.ids, ranked.scores, dict(zip(self.keys, map(float, weights), strict=True)), timings
        )

    def bm25(self, query: str, k: int = DEFAULT_TOP_K, node_type: str | None = None) -> TextRanking:
        """Baseline: BM25 over the whole node document."""
        found = self._lexical.search_document(query, k, node_type=node_type)
        return TextRanking("bm25", found.ids, found.scores)

    def vss(self, query: str, k: int = DEFAULT_TOP_K, node_type: str | None = None) -> TextRanking:
        """Baseline: cosine of the query and the document embedding (needs the dense document field)."""
        if self._dense is None:
            raise TextBranchError("VSS needs the dense index with the document field (include_document=True)")
        vector = np.asarray(self._embedder.embed_query(query), dtype=np.float32)
        found: ScoredNodes = self._dense.search_document(vector, k, node_type=node_type, relative=False)
        return TextRanking("vss", found.ids, found.scores)

    def bm25_vss(
        self, query: str, k: int = DEFAULT_TOP_K, node_type: str | None = None, rrf_k: float = 60.0
    ) -> TextRanking:
        """Baseline: equal-weight RRF of the two above."""
        fused = weighted_rrf(
            [self.bm25(query, k, node_type).ids, self.vss(query, k, node_type).ids], [1.0, 1.0], rrf_k, limit=k
        )
        return TextRanking(
            "bm25+vss", tuple(cast(NodeId, item.id) for item in fused), tuple(item.score for item in fused)
        )


def _since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
