"""Candidates for the learned field weights: per-(field, scorer) rankings of a query and their union.

`field_candidates` runs a query through the lexical and dense indexes for the requested keys; the union of
their top N is a `CandidateScores` matrix (candidates x keys) of max-normalized scores, which is all the
weighting needs, and training only ever sees these matrices. Every candidate is scored under every key, as
mFAR's score(q, d) = sum_k w_k(q) s_k(q, d) asks: a BM25 field scores any node, so a candidate outside that
field's top N gets its own score there, not 0 (a disease with both the named gene and the named phenotype must
not lose to one with the gene alone because forty others share the phenotype); a dense key's scores are relative
to the best node left out of its top N, so 0 is exact there. `weight_examples` builds the matrices for a batch
of questions (dense fields scored in one matrix product each).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from grasp_agent.text_branch.bm25_index import LexicalIndex
from grasp_agent.text_branch.dense_fields import DenseFieldIndex
from grasp_agent.text_branch.fields import NodeId, ScoredNodes, TextBranchError
from grasp_agent.text_branch.multifield import COMBINED, FieldKey, max_normalize

DEFAULT_CANDIDATES = 20  # per key: mFAR's union of per-field top-N

# The raw score of each of some nodes under one key (what its ranking's scores are before normalizing)
ExactScores = Callable[[Sequence[NodeId]], np.ndarray]


@dataclass(frozen=True)
class CandidateScores:
    """A query's candidates: the union of its per-key rankings, with each one's normalized score per key."""

    ids: tuple[NodeId, ...]  # (n,) first-seen order over keys, then ranking order (as combine_fields)
    scores: np.ndarray  # float64 (n, K): max-normalized score under key k (0: absent, and the key cannot score it)

    @classmethod
    def from_rankings(
        cls,
        rankings: Mapping[FieldKey, ScoredNodes],
        keys: Sequence[FieldKey],
        exact: Mapping[FieldKey, ExactScores] | None = None,
    ) -> CandidateScores:
        """The union of `rankings` over `keys`; a candidate absent from a key's ranking scores 0 there, or its
        own score when `exact` can score that key (divided by the ranking's top score, as the ranked ones are)."""
        missing = [key for key in keys if key not in rankings]
        if missing:
            raise TextBranchError(f"no ranking for (field, scorer) keys {missing}; rankings: {list(rankings)}")
        normalized = [max_normalize(rankings[key]) for key in keys]
        position: dict[NodeId, int] = {}
        for scores in normalized:
            for node_id in scores:
                position.setdefault(node_id, len(position))
        ids = tuple(position)
        matrix = np.zeros((len(ids), len(keys)), dtype=np.float64)
        for column, (key, scores) in enumerate(zip(keys, normalized, strict=True)):
            top = max(rankings[key].scores, default=0.0)
            if exact is not None and key in exact and top > 0.0:
                matrix[:, column] = np.asarray(exact[key](ids), dtype=np.float64) / top
            for node_id, score in scores.items():  # the ranking's own scores stand (the same numbers)
                matrix[position[node_id], column] = score
        return cls(ids, matrix)

    def combined(self, weights: np.ndarray) -> np.ndarray:
        """float64 (n,): sum_k weights[k] * scores[:, k]."""
        return self.scores.astype(np.float64) @ np.asarray(weights, dtype=np.float64)

    def rank(self, weights: np.ndarray, k: int | None = None) -> ScoredNodes:
        """Candidates by combined score, best first, ties in candidate order: `combine_fields`'s ranking."""
        totals = self.combined(weights)
        order = np.argsort(-totals, kind="stable")[:k]
        return ScoredNodes(COMBINED, tuple(self.ids[i] for i in order), tuple(float(totals[i]) for i in order))


@dataclass(frozen=True)
class WeightExample:
    """One training or evaluation question: its query vector (d,), candidates, and gold answer ids."""

    query: np.ndarray
    candidates: CandidateScores
    gold: frozenset[NodeId]

    @property
    def positives(self) -> np.ndarray:
        """bool (n,): which candidates are gold."""
        return np.asarray([node_id in self.gold for node_id in self.candidates.ids], dtype=bool)


def field_candidates(
    keys: Sequence[FieldKey],
    query: str,
    query_vector: np.ndarray | None,
    *,
    lexical: LexicalIndex | None = None,
    dense: DenseFieldIndex | None = None,
    k: int = DEFAULT_CANDIDATES,
    node_type: str | None = None,
) -> CandidateScores:
    """The union of each key's top `k` (BM25 keys from `lexical` by `query`, dense keys from `dense` by the
    vector), every candidate scored under every key."""
    vectors = None if query_vector is None else np.asarray(query_vector)[None, :]
    rankings, exact = _rankings(keys, [query], vectors, [node_type], lexical, dense, k)[0]
    return CandidateScores.from_rankings(rankings, keys, exact)


def weight_examples(
    keys: Sequence[FieldKey],
    queries: Sequence[str],
    query_vectors: np.ndarray,
    golds: Sequence[Collection[NodeId]],
    *,
    lexical: LexicalIndex | None = None,
    dense: DenseFieldIndex | None = None,
    k: int = DEFAULT_CANDIDATES,
    node_types: Sequence[str | None] | None = None,
) -> list[WeightExample]:
    """One `WeightExample` per query (its text, its vector row (m, d), its gold ids), candidates per `keys`."""
    if not len(queries) == len(query_vectors) == len(golds):
        raise TextBranchError(
            f"queries ({len(queries)}), query vectors ({len(query_vectors)}) and gold sets ({len(golds)}) must align"
        )
    types = list(node_types) if node_types is not None else [None] * len(queries)
    rankings = _rankings(keys, queries, query_vectors, types, lexical, dense, k)
    return [
        WeightExample(
            np.asarray(vector, dtype=np.float32),
            CandidateScores.from_rankings(ranking, keys, exact),
            frozenset(gold),
        )
        for vector, (ranking, exact), gold in zip(query_vectors, rankings, golds, strict=True)
    ]


def _rankings(
    keys: Sequence[FieldKey],
    queries: Sequence[str],
    vectors: np.ndarray | None,
    node_types: Sequence[str | None],
    lexical: LexicalIndex | None,
    dense: DenseFieldIndex | None,
    k: int,
) -> list[tuple[dict[FieldKey, ScoredNodes], dict[FieldKey, ExactScores]]]:
    """Per query, the top `k` of each key and, for the BM25 keys, the scorer of any node."""
    lexical_fields = [name for name, scorer in keys if scorer == "bm25"]
    dense_fields = [name for name, scorer in keys if scorer == "dense"]
    if lexical_fields and lexical is None:
        raise TextBranchError(f"keys name BM25 fields {lexical_fields} but no lexical index was given")
    if dense_fields and (dense is None or vectors is None):
        raise TextBranchError(f"keys name dense fields {dense_fields} but no dense index or query vector was given")
    dense_hits = (
        dense.batch_search(vectors, k, node_types=node_types, fields=dense_fields)
        if dense is not None and vectors is not None and dense_fields
        else [{} for _ in queries]
    )
    results = []
    for query, node_type, hits in zip(queries, node_types, dense_hits, strict=True):
        ranking: dict[FieldKey, ScoredNodes] = {(name, "dense"): ranked for name, ranked in hits.items()}
        exact: dict[FieldKey, ExactScores] = {}
        if lexical is not None and lexical_fields:
            scored = lexical.score(query, node_type=node_type, fields=lexical_fields)
            ranking.update({(name, "bm25"): ranked for name, ranked in scored.top(k).items()})
            exact = {(name, "bm25"): partial(scored.of, name) for name in lexical_fields}
        results.append(({key: ranking[key] for key in keys}, exact))
    return results
