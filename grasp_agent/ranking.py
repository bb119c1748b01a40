"""The vocabulary every layer shares, below the branches: node ids, the plan's risk levels, and the ranking
quality measures (pure functions: Hit@k, Recall@k, MRR, exact match over ranked ids and gold answer ids).

The branches, fusion, evaluation and training all speak it; it imports nothing of grasp_agent.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from statistics import fmean

NodeId = str | int  # SKB node ids: strings, or STaRK's integers


class Risk(str, Enum):
    """How far a plan's graph ranking may be trusted (the planner's own estimate; dynamic fusion reads it)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


def hit_at(ranked: Sequence[Hashable], gold: set[Hashable], k: int) -> float:
    """1.0 when any gold answer is among the first k."""
    return 1.0 if any(item in gold for item in ranked[:k]) else 0.0


def recall_at(ranked: Sequence[Hashable], gold: set[Hashable], k: int) -> float:
    """Share of the gold answers among the first k."""
    return len(gold.intersection(ranked[:k])) / len(gold) if gold else 0.0


def reciprocal_rank(ranked: Sequence[Hashable], gold: set[Hashable]) -> float:
    """1 / rank of the first gold answer; 0.0 when none is ranked."""
    return next((1.0 / rank for rank, item in enumerate(ranked, start=1) if item in gold), 0.0)


def path_exact_match(paths: Sequence[Sequence[Hashable]], gold: set[Hashable]) -> float:
    """For path outputs (AdaPath: ranked paths as node-id sequences from the topic entity): 1.0 when the first
    path ends at a gold answer entity, else 0.0 (no path is a miss)."""
    return 1.0 if paths and paths[0] and paths[0][-1] in gold else 0.0


def normalise_answer(text: str) -> str:
    """Case-folded, whitespace collapsed: how AdaPath's EM compares an answer with a gold name."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def exact_match(answer: str, gold_names: Iterable[str]) -> float:
    """1.0 when the normalised answer equals any normalised gold name (an empty answer never matches)."""
    normalised = normalise_answer(answer)
    return 1.0 if normalised and any(normalised == normalise_answer(name) for name in gold_names) else 0.0


def cell_averaged(scores: Sequence[tuple[tuple[str, ...], float]]) -> tuple[dict[tuple[str, ...], float], float]:
    """Per cell (e.g. (level, hops)) the mean score, and Overall = the mean of the cells (the paper's macro
    average, so a big cell does not drown the small ones). Empty input: no cells, 0.0."""
    cells: dict[tuple[str, ...], list[float]] = defaultdict(list)
    for cell, score in scores:
        cells[cell].append(score)
    means = {cell: fmean(values) for cell, values in sorted(cells.items())}
    return means, (fmean(means.values()) if means else 0.0)


@dataclass(frozen=True)
class RankingQuality:
    questions: int
    hit_at_1: float
    hit_at_5: float
    recall_at_20: float
    mrr: float

    def as_row(self) -> dict[str, float | int]:
        return {
            "questions": self.questions,
            "Hit@1": self.hit_at_1,
            "Hit@5": self.hit_at_5,
            "R@20": self.recall_at_20,
            "MRR": self.mrr,
        }


def ranking_quality(runs: Sequence[tuple[Sequence[Hashable], set[Hashable]]]) -> RankingQuality:
    """Means over questions of (ranked ids, gold ids) pairs; an empty ranking counts as a miss."""
    if not runs:
        return RankingQuality(0, 0.0, 0.0, 0.0, 0.0)
    return RankingQuality(
        questions=len(runs),
        hit_at_1=fmean(hit_at(r, g, 1) for r, g in runs),
        hit_at_5=fmean(hit_at(r, g, 5) for r, g in runs),
        recall_at_20=fmean(recall_at(r, g, 20) for r, g in runs),
        mrr=fmean(reciprocal_rank(r, g) for r, g in runs),
    )
