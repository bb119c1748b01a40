"""The perturbation check: one requirement worded several ways should keep one top answer.

A group is the questions whose ids differ only in their last `-N` (`group_of`; `grasp bench build-novel` ids). From a
system's saved runs, a group is *stable* when every member's first-ranked node is the same one, and *stable and
right* when that node is also an answer. Pure functions over runs; `grasp eval perturbation` prints them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grasp_agent.evaluation.query_sets import EvalQuery


@dataclass(frozen=True)
class GroupVerdict:
    group: str
    size: int
    tops: int  # distinct first-ranked nodes over the members (an empty ranking counts as one more)
    right: bool  # stable, and the one top node is an answer

    @property
    def stable(self) -> bool:
        return self.tops == 1


@dataclass(frozen=True)
class PerturbationSummary:
    system: str
    groups: int
    stable: int
    stable_and_right: int
    verdicts: tuple[GroupVerdict, ...]

    @property
    def stable_share(self) -> float:
        return self.stable / self.groups if self.groups else 0.0

    @property
    def right_share(self) -> float:
        return self.stable_and_right / self.groups if self.groups else 0.0


def group_of(query_id: str) -> str:
    """A perturbation question's group: its id without the last `-N`."""
    return query_id.rsplit("-", 1)[0]


def perturbation_summary(
    system: str, queries: Sequence[EvalQuery], ranked: Mapping[str, Sequence[Any]]
) -> PerturbationSummary:
    """Stability per group of `queries` under `ranked` (query id -> ranked node ids; a missing id ranks nothing)."""
    members: dict[str, list[EvalQuery]] = {}
    for query in queries:
        members.setdefault(group_of(query.id), []).append(query)
    verdicts = []
    for group, questions in members.items():
        tops = {(ranked.get(q.id) or [None])[0] for q in questions}
        top = next(iter(tops)) if len(tops) == 1 else None
        right = top is not None and all(str(top) in {str(a) for a in q.answer_ids} for q in questions)
        verdicts.append(GroupVerdict(group, len(questions), len(tops), right))
    return PerturbationSummary(
        system,
        len(verdicts),
        sum(v.stable for v in verdicts),
        sum(v.right for v in verdicts),
        tuple(verdicts),
    )


__all__ = ["GroupVerdict", "PerturbationSummary", "group_of", "perturbation_summary"]
