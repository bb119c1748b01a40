"""The planner's reward (GRASP's RL signal): how much a plan's graph ranking improves the fused ranking over the
text branch alone, read from a table estimated on the valid split (pure).

A plan is described by two things the reward can see without gold labels at training time being special:
where its graph ranking put the first gold answer (bucket of the gold rank, or a miss) and how many candidates
it returned (bucket of the count). The table T[gold-rank bucket, candidate bucket] holds the mean gain
RR(fused) - RR(text) of the valid questions whose plans fell in that cell, so the reward says what such a plan
is worth to the *fused* result: a plan that ranks the gold first among 3 candidates is worth more than one that
ranks it first among 100, because fusion can trust it more. Cells seen fewer than `SHRINK_AT` times are shrunk
toward their gold-rank row's mean with weight min(1, n / SHRINK_AT). Invalid or failing plans get the lowest
gain there is, -1 (the fused list lost a gold answer the text branch ranked first).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grasp_agent.errors import GraspError

GOLD_RANK_BUCKETS = ("1", "2-3", "4-10", "11-100", "miss")
CANDIDATE_BUCKETS = ("0", "1-10", "11-50", "51-99", "100+")  # the graph branch returns at most 100
SHRINK_AT = 50
LOWEST = -1.0  # invalid or failing plan


def gold_rank_bucket(rank: int | None) -> str:
    """`rank` is 1-based; None (or beyond 100) is a miss."""
    if rank is None or rank > 100:
        return "miss"
    if rank < 1:
        raise ValueError(f"ranks are 1-based; got {rank}")
    return "1" if rank == 1 else "2-3" if rank <= 3 else "4-10" if rank <= 10 else "11-100"


def candidate_bucket(count: int) -> str:
    if count < 0:
        raise ValueError(f"a candidate count is >= 0; got {count}")
    return (
        "0" if count == 0 else "1-10" if count <= 10 else "11-50" if count <= 50 else "51-99" if count < 100 else "100+"
    )


def first_gold_rank(ranking: Sequence[Hashable], gold: Iterable[Hashable]) -> int | None:
    answers = set(gold)
    return next((index + 1 for index, node in enumerate(ranking) if node in answers), None)


def reciprocal_rank(ranking: Sequence[Hashable], gold: Iterable[Hashable]) -> float:
    rank = first_gold_rank(ranking, gold)
    return 1.0 / rank if rank is not None else 0.0


@dataclass(frozen=True)
class RewardObservation:
    """One valid question under one plan: where the graph put the gold, how many candidates, and the gain."""

    gold_rank: int | None
    candidates: int
    gain: float  # RR(fused) - RR(text)

    @classmethod
    def from_rankings(
        cls, graph: Sequence[Hashable], text: Sequence[Hashable], fused: Sequence[Hashable], gold: Iterable[Hashable]
    ) -> RewardObservation:
        answers = set(gold)
        return cls(
            first_gold_rank(graph, answers),
            len(graph),
            reciprocal_rank(fused, answers) - reciprocal_rank(text, answers),
        )


@dataclass(frozen=True)
class RewardCell:
    value: float  # after shrinkage
    mean: float  # the raw mean gain of the cell (0.0 when empty)
    count: int


@dataclass(frozen=True)
class RewardTable:
    cells: dict[tuple[str, str], RewardCell]
    questions: int  # observations it was estimated from

    @classmethod
    def estimate(cls, observations: Sequence[RewardObservation], shrink_at: int = SHRINK_AT) -> RewardTable:
        """Cell means shrunk toward their row's mean; an empty row takes the overall mean."""
        if not observations:
            raise GraspError("the reward table needs at least one observation (valid questions with plans)")
        if shrink_at < 1:
            raise ValueError(f"shrink_at must be >= 1; got {shrink_at}")
        grouped: dict[tuple[str, str], list[float]] = {}
        rows: dict[str, list[float]] = {}
        for item in observations:
            key = (gold_rank_bucket(item.gold_rank), candidate_bucket(item.candidates))
            grouped.setdefault(key, []).append(item.gain)
            rows.setdefault(key[0], []).append(item.gain)
        overall = sum(item.gain for item in observations) / len(observations)
        cells = {}
        for row in GOLD_RANK_BUCKETS:
            row_mean = sum(rows[row]) / len(rows[row]) if row in rows else overall
            for column in CANDIDATE_BUCKETS:
                gains = grouped.get((row, column), [])
                mean = sum(gains) / len(gains) if gains else 0.0
                weight = min(1.0, len(gains) / shrink_at)
                cells[(row, column)] = RewardCell(weight * mean + (1.0 - weight) * row_mean, mean, len(gains))
        return cls(cells, len(observations))

    def reward(self, gold_rank: int | None, candidates: int) -> float:
        return self.cells[(gold_rank_bucket(gold_rank), candidate_bucket(candidates))].value

    def reward_of_rankings(self, graph: Sequence[Hashable] | None, gold: Iterable[Hashable]) -> float:
        """A plan's reward from its graph ranking; None (invalid plan, failed execution) is the lowest."""
        if graph is None:
            return LOWEST
        return self.reward(first_gold_rank(graph, gold), len(graph))

    def to_json(self) -> dict[str, object]:
        return {
            "questions": self.questions,
            "gold_rank_buckets": list(GOLD_RANK_BUCKETS),
            "candidate_buckets": list(CANDIDATE_BUCKETS),
            "cells": [
                {"gold_rank": row, "candidates": column, "value": cell.value, "mean": cell.mean, "count": cell.count}
                for (row, column), cell in self.cells.items()
            ],
        }

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> RewardTable:
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            cells = {
                (str(c["gold_rank"]), str(c["candidates"])): RewardCell(
                    float(c["value"]), float(c["mean"]), int(c["count"])
                )
                for c in payload["cells"]
            }
            questions = int(payload["questions"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise GraspError(f"cannot read the reward table {path}: {error}") from error
        expected = {(row, column) for row in GOLD_RANK_BUCKETS for column in CANDIDATE_BUCKETS}
        if set(cells) != expected:
            raise GraspError(f"reward table {path} does not have the {len(expected)} cells of this version")
        return cls(cells, questions)
