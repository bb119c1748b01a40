"""A path the search found: its nodes and hops, its score, and the meta-path that produced it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NodeId = str | int


@dataclass(frozen=True)
class EvidencePath:
    node_ids: tuple[NodeId, ...]
    names: tuple[str, ...]
    labels: tuple[str, ...]
    relations: tuple[str, ...]
    outgoing: tuple[bool, ...]
    score: float  # mean cosine of the question and the path's nodes, topic excluded
    meta_path: str  # signature, or "unguided"

    @property
    def end_id(self) -> NodeId:
        return self.node_ids[-1]

    @property
    def end_name(self) -> str:
        return self.names[-1]

    def render(self) -> str:
        """`Epileptic spasm <-[ASSOCIATED_WITH]- KCNT2`."""
        parts = [self.names[0]]
        for relation, out, name in zip(self.relations, self.outgoing, self.names[1:], strict=True):
            parts.append(f"-[{relation}]->" if out else f"<-[{relation}]-")
            parts.append(name)
        return " ".join(parts)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> EvidencePath:
        """From an `adapath.bfs` row."""
        return cls(
            tuple(record["nodeIds"]),
            tuple(str(name) for name in record["names"]),
            tuple(record["labels"]),
            tuple(record["relations"]),
            tuple(bool(out) for out in record["outgoing"]),
            float(record["score"]),
            str(record["metaPath"]),
        )


def ranked_end_nodes(paths: list[EvidencePath]) -> list[NodeId]:
    """End nodes, best path first, each once (what `grasp eval` ranks)."""
    return list(dict.fromkeys(path.end_id for path in paths))
