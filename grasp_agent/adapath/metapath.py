"""Typed meta-paths: the label/relation/direction skeleton of a concrete path, what the Path-Bank stores.

A path Phenotype:Epileptic spasm <-[ASSOCIATED_WITH]- Gene:KCNT2 abstracts to
`(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)`: the start label, then per hop the relation type, whether it was
walked along its stored direction, and the label reached. Two paths share a meta-path when those agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAX_HOPS = 3  # AdaPath registers meta-paths of 1-3 hops


@dataclass(frozen=True)
class MetaPathStep:
    relation: str
    outgoing: bool  # walked along the stored direction (source -> target)
    label: str  # label of the node this step reaches

    def render(self) -> str:
        return f"-[:{self.relation}]->(:{self.label})" if self.outgoing else f"<-[:{self.relation}]-(:{self.label})"


@dataclass(frozen=True)
class MetaPath:
    start_label: str
    steps: tuple[MetaPathStep, ...]

    def __post_init__(self) -> None:
        if not 1 <= len(self.steps) <= MAX_HOPS:
            raise ValueError(f"a meta-path has 1-{MAX_HOPS} hops; got {len(self.steps)}")

    @property
    def hops(self) -> int:
        return len(self.steps)

    @property
    def answer_label(self) -> str:
        return self.steps[-1].label

    def as_lists(self) -> dict[str, list[Any]]:
        """{labels (hops + 1), relations, outgoing}: how the Path-Bank stores it and `adapath.bfs` takes it."""
        return {
            "labels": [self.start_label, *(step.label for step in self.steps)],
            "relations": [step.relation for step in self.steps],
            "outgoing": [step.outgoing for step in self.steps],
        }

    @classmethod
    def from_lists(cls, labels: Sequence[str], relations: Sequence[str], outgoing: Sequence[bool]) -> MetaPath:
        if len(labels) != len(relations) + 1 or len(relations) != len(outgoing):
            raise ValueError(
                f"a meta-path needs one label more than relations and one direction per relation; "
                f"got {list(labels)}, {list(relations)}, {list(outgoing)}"
            )
        steps = tuple(
            MetaPathStep(relation, bool(out), label)
            for relation, out, label in zip(relations, outgoing, labels[1:], strict=True)
        )
        return cls(labels[0], steps)

    @property
    def signature(self) -> str:
        """Cypher-like and unique per meta-path: `(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)`."""
        return f"(:{self.start_label})" + "".join(step.render() for step in self.steps)


@dataclass(frozen=True)
class PathHop:
    """One hop of a concrete path: the node ids at both ends and how they are joined."""

    source_id: str | int
    target_id: str | int
    source_label: str
    target_label: str
    relation: str
    outgoing: bool


def meta_path_of(hops: Sequence[PathHop]) -> MetaPath:
    """The meta-path of consecutive hops (each hop must start where the previous one ended)."""
    if not hops:
        raise ValueError("a path needs at least one hop")
    for previous, current in zip(hops, hops[1:], strict=False):
        if previous.target_id != current.source_id:
            raise ValueError(f"hops do not chain: {previous.target_id!r} then {current.source_id!r}")
    steps = tuple(MetaPathStep(hop.relation, hop.outgoing, hop.target_label) for hop in hops)
    return MetaPath(hops[0].source_label, steps)
