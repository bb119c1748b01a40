"""Routes from a type back to itself that training questions followed, read from the SKB's Path-Bank.

A question that names a node of the type it asks for ("X-allelic diseases with P", "diseases like X with P")
gives no way from that node to the answers when the schema has no relation of the type with itself and no word
names a station. The Path-Bank stores, per training question, the meta-paths from its topics to its answers;
where most of the training questions whose answers had their topic's type took one route first (HPO:
Disease -> Gene -> Disease), that route is what such a question means in this SKB. Learned, so it carries over:
an SKB without a bank, or whose bank is split between routes, gets none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.graph_branch.schema_paths import SchemaHop

# fewer training questions than this say too little about a type's route (a bank over a generated split holds a
# handful per route; the HPO's benchmark split holds 49 for Disease)
MIN_QUESTIONS = 10
MAJORITY = 0.5  # share of a type's questions that must have taken the route first


@dataclass(frozen=True)
class LearnedLoop:
    """A route from `hops[0].source` back to its own type, and how many training questions backed it."""

    hops: tuple[SchemaHop, ...]
    questions: int  # training questions whose cheapest same-type path took it
    of: int  # training questions whose cheapest path went from a topic to an answer of that type

    @property
    def label(self) -> str:
        return self.hops[0].source

    @property
    def signature(self) -> str:
        return " ".join([self.label, *(f"-{hop.relation}- {hop.target}" for hop in self.hops)])


def _hops(labels: list[str], relations: list[str], outgoing: list[bool]) -> tuple[SchemaHop, ...]:
    return tuple(SchemaHop(labels[i], relation, labels[i + 1], outgoing[i]) for i, relation in enumerate(relations))


def learned_loops(rows: Iterable[Mapping[str, Any]]) -> dict[str, LearnedLoop]:
    """Per type, the route most of its training questions took first, when at least MIN_QUESTIONS did and they
    are more than MAJORITY of the type's questions (rows: `bank_loops`' labels, relations, outgoing, questions).
    Routes of one hop are left out: a relation of the type with itself is the schema's own way back. Pure."""
    by_type: dict[str, list[LearnedLoop]] = {}
    for row in rows:
        labels, relations, outgoing = list(row["labels"]), list(row["relations"]), list(row["outgoing"])
        if len(labels) != len(relations) + 1 or len(outgoing) != len(relations) or labels[0] != labels[-1]:
            continue
        by_type.setdefault(labels[0], []).append(
            LearnedLoop(_hops(labels, relations, outgoing), int(row["questions"]), 0)
        )
    chosen = {}
    for label, loops in by_type.items():
        total = sum(loop.questions for loop in loops)
        best = max(loops, key=lambda loop: (loop.questions, -len(loop.hops)))
        if len(best.hops) > 1 and best.questions >= MIN_QUESTIONS and best.questions > MAJORITY * total:
            chosen[label] = LearnedLoop(best.hops, best.questions, total)
    return chosen


def read_learned_loops(procedures: GraphProcedures, skb: str) -> dict[str, LearnedLoop]:
    """The loaded SKB's learned routes ({} without a Path-Bank of this SKB)."""
    return learned_loops(procedures.bank_loops(skb))


__all__ = ["LearnedLoop", "learned_loops", "read_learned_loops"]
