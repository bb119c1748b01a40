"""Weighted reciprocal rank fusion (pure): `score(d) = sum_i w_i / (k + rank_i(d))`.

RRF is Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank
Learning Methods" (SIGIR 2009), where k = 60; the weights are GRASP's (graph vs text, then reranker vs fused).
Ranks are 1-based, and a ranking that does not hold an item adds nothing to its score.

Order of the result: score descending; then best (smallest) rank over all inputs; then the index of the first
input that holds the item at that best rank. Since one input holds one item per rank, this order is total, and
it is the order in which items are first met when reading the inputs rank by rank, input by input. Scores are
compared rounded to 12 decimals, so a tie that is exact on paper does not hinge on floating-point summation order.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from grasp_agent.errors import GraspError

RRF_K = 60.0  # Cormack et al. (2009)
_SCORE_DECIMALS = 12


class FusionError(GraspError):
    """Fusion inputs or fusion tables are unusable; the message names the value and what is allowed."""


@dataclass(frozen=True)
class FusedItem:
    id: Hashable
    score: float
    ranks: tuple[int | None, ...]  # one per input ranking, 1-based; None where that ranking lacks the item

    @property
    def best_rank(self) -> int:
        return min(rank for rank in self.ranks if rank is not None)


def rank_map(ranking: Sequence[Hashable]) -> dict[Hashable, int]:
    """1-based rank of each id; a repeated id keeps its first (best) rank, as a run file's duplicate would."""
    ranks: dict[Hashable, int] = {}
    for position, item in enumerate(ranking, start=1):
        ranks.setdefault(item, position)
    return ranks


def rank_of(ranking: Sequence[Hashable], item: Hashable) -> int | None:
    """1-based rank of `item` in `ranking` (its first occurrence), or None when absent."""
    return rank_map(ranking).get(item)


def check_k(k: float) -> None:
    if not math.isfinite(k) or k <= 0:
        raise FusionError(f"RRF k must be a finite number > 0; got {k!r}")


def check_unit_weight(name: str, value: float) -> None:
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise FusionError(f"{name} must be in [0, 1]; got {value!r}")


def _check_inputs(
    rankings: Sequence[Sequence[Hashable]], weights: Sequence[float], k: float, limit: int | None
) -> None:
    if len(weights) != len(rankings):
        raise FusionError(f"one weight per ranking is needed; got {len(weights)} weights for {len(rankings)} rankings")
    for index, weight in enumerate(weights):
        if not math.isfinite(weight) or weight < 0:
            raise FusionError(f"weight {index} must be a finite number >= 0; got {weight!r}")
    check_k(k)
    if limit is not None and limit < 0:
        raise FusionError(f"limit must be >= 0 or None; got {limit!r}")


def weighted_rrf(
    rankings: Sequence[Sequence[Hashable]], weights: Sequence[float], k: float = RRF_K, limit: int | None = None
) -> list[FusedItem]:
    """Fuses rankings (best first) into one, best first; `limit` keeps the first `limit` items.

    An item held only by zero-weight rankings scores 0 and sorts after every scored item: fusion never drops
    a candidate, it only orders them.
    """
    _check_inputs(rankings, weights, k, limit)
    maps = [rank_map(ranking) for ranking in rankings]
    first_seen: dict[Hashable, None] = {}  # insertion-ordered union of the ids
    for ranks_by_id in maps:
        first_seen.update(dict.fromkeys(ranks_by_id))
    items = []
    for item in first_seen:
        ranks = tuple(ranks_by_id.get(item) for ranks_by_id in maps)
        # Summed in input order, so equal inputs always give the bit-identical score.
        score = sum(weight / (k + rank) for weight, rank in zip(weights, ranks, strict=True) if rank is not None)
        items.append(FusedItem(id=item, score=score, ranks=ranks))
    items.sort(key=_order_key)
    return items if limit is None else items[:limit]


def _order_key(item: FusedItem) -> tuple[float, int, int]:
    best = item.best_rank
    return -round(item.score, _SCORE_DECIMALS), best, item.ranks.index(best)


def rerank_fusion(
    reranker_order: Sequence[Hashable],
    fused_order: Sequence[Hashable],
    w: float,
    k: float = RRF_K,
    limit: int | None = None,
) -> list[FusedItem]:
    """GRASP's last step: RRF of the reranker's order (weight w) and the fused order (weight 1 - w).

    A reranker usually reorders only the head of the fused list; items it did not see keep their fused
    contribution and so fall behind the reranked ones that the fused order also ranks well.
    `ranks` of each result item are (reranker rank, fused rank).
    """
    check_unit_weight("reranker weight w", w)
    return weighted_rrf([reranker_order, fused_order], [w, 1.0 - w], k, limit)


__all__ = [
    "RRF_K",
    "FusedItem",
    "FusionError",
    "check_k",
    "check_unit_weight",
    "rank_map",
    "rank_of",
    "rerank_fusion",
    "weighted_rrf",
]
