"""mFAR's combination of per-field scores: score(node) = sum_(f, s) w_(f, s) * normalized score_(f, s)(node).

A weight is keyed by (field, scorer), scorer in {"bm25", "dense"}, as mFAR mixes a lexical and a dense
scorer per field. Weights come from `uniform_weights` (the untrained fallback) or from the learned,
query-conditioned `field_weights.FieldWeightModel.weights` (mFAR's softmax over fields); `combine_fields` does
not care which. Dense rankings arrive already floored (see `dense_fields`: cosine minus the best left-out one).

Normalization: each ranking is divided by its own top score (per query, per field). BM25 scores are
non-negative and zero exactly when no query term occurs in the field, so dividing by the maximum is
min-max normalization (Lee, SIGIR 1997) with the natural floor 0. It removes what makes raw BM25
incomparable across fields - the scale set by the query's length and by the field's idf statistics - and
keeps 0 meaning "no match", so a node missing from a field's top N is treated as (near) zero there, which
it is. A z-score needs the mean and spread over every node of the field: those depend on how many nodes
lack the field (not every phenotype has a comment) and are unknown from a top-N list; it also gives
non-matching nodes negative, field-dependent values. The cost of max normalization: the best node of a
field scores 1 however weak its match (a field where only "syndrome" matched); discounting such fields is
the job of mFAR's learned weights. (Dense cosines can be negative; the dense scorer will bring its floor.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, get_args

from grasp_agent.text_branch.fields import NodeId, ScoredNodes, TextBranchError

Scorer = Literal["bm25", "dense"]
SCORERS: tuple[Scorer, ...] = get_args(Scorer)
FieldKey = tuple[str, Scorer]  # (field name, scorer)
FieldWeights = Mapping[FieldKey, float]
COMBINED = "multifield"


def uniform_weights(fields: Iterable[str], scorers: Iterable[Scorer] = ("bm25",)) -> dict[FieldKey, float]:
    """Equal weights summing to 1 over every (field, scorer) pair: the untrained fallback."""
    keys = [(field, scorer) for field in fields for scorer in scorers]
    unknown = sorted({scorer for _, scorer in keys} - set(SCORERS))
    if unknown:
        raise TextBranchError(f"unknown scorers {unknown}; known: {list(SCORERS)}")
    if not keys:
        raise TextBranchError("uniform weights need at least one field and one scorer")
    return {key: 1.0 / len(keys) for key in keys}


def max_normalize(ranking: ScoredNodes) -> dict[NodeId, float]:
    """Each score divided by the ranking's top score; an empty or all-zero ranking gives nothing."""
    top = max(ranking.scores, default=0.0)
    if top <= 0.0:
        return {}
    return {node_id: score / top for node_id, score in zip(ranking.ids, ranking.scores, strict=True)}


def combine_fields(
    rankings: Mapping[FieldKey, ScoredNodes], weights: FieldWeights, k: int | None = None
) -> ScoredNodes:
    """Weighted sum of max-normalized rankings, best first (ties in first-seen order), cut to `k`.

    Every weighted key must have a ranking (an empty one is fine: the field matched nothing); rankings
    without a weight are left out. A node absent from a ranking contributes 0 for it.
    """
    missing = [key for key in weights if key not in rankings]
    if missing:
        raise TextBranchError(
            f"weights name (field, scorer) pairs with no ranking: {missing}; rankings: {list(rankings)}"
        )
    bad = {key: weight for key, weight in weights.items() if not weight >= 0.0}
    if bad:
        raise TextBranchError(f"field weights must be non-negative numbers; got {bad}")
    if k is not None and k < 1:
        raise TextBranchError(f"k must be at least 1 or None; got {k}")
    totals: dict[NodeId, float] = {}
    for key, weight in weights.items():
        for node_id, score in max_normalize(rankings[key]).items():
            totals[node_id] = totals.get(node_id, 0.0) + weight * score
    order = sorted(totals.items(), key=lambda item: -item[1])  # stable: ties keep first-seen order
    if k is not None:
        order = order[:k]
    return ScoredNodes(COMBINED, tuple(node_id for node_id, _ in order), tuple(score for _, score in order))
