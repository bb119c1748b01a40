"""Online AdaPath: meta-paths from the Path-Bank, then the guided beam search (`adapath.bfs`) from the topic.

When the bank offers no meta-path for the question (empty bank, filters too strict) the search runs
unguided, as the paper falls back; the result says which happened.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from neo4j import Driver

from grasp_agent.adapath.bank_retrieval import RankedMetaPath, retrieve_meta_paths
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.embed.base import GraspEmbedder


@dataclass(frozen=True)
class EvidencePath:
    node_ids: tuple[str | int, ...]
    names: tuple[str, ...]
    labels: tuple[str, ...]
    relations: tuple[str, ...]
    outgoing: tuple[bool, ...]
    score: float
    meta_path: str  # signature, or "unguided"

    @property
    def end_id(self) -> str | int:
        return self.node_ids[-1]

    def render(self) -> str:
        """`Epileptic spasm <-[ASSOCIATED_WITH]- KCNT2`."""
        parts = [self.names[0]]
        for relation, out, name in zip(self.relations, self.outgoing, self.names[1:], strict=True):
            parts.append(f"-[{relation}]->" if out else f"<-[{relation}]-")
            parts.append(name)
        return " ".join(parts)


@dataclass
class PathSearch:
    meta_paths: list[RankedMetaPath] = field(default_factory=list)
    paths: list[EvidencePath] = field(default_factory=list)
    guided: bool = True
    truncated: bool = False

    def ranked_end_nodes(self) -> list[str | int]:
        """End nodes, best path first, each once (what `grasp eval` ranks)."""
        return list(dict.fromkeys(path.end_id for path in self.paths))


def find_paths(driver: Driver, database: str, embedder: GraspEmbedder, question: str, topic_ids: Sequence[str | int], *,
               bank_queries: int = 20, meta_paths: int = 5, hops: int | None = None, answer_label: str | None = None,
               config: Mapping[str, Any] | None = None, use_bank: bool = True) -> PathSearch:
    """`use_bank=False` is the unguided baseline (AdaPath without its Path-Bank)."""
    vector = embedder.embed_query(question)
    ranked = retrieve_meta_paths(driver, database, vector, queries=bank_queries, limit=meta_paths, hops=hops,
                                 answer_label=answer_label) if use_bank else []
    search = PathSearch(meta_paths=ranked, guided=bool(ranked))
    records = AdaPathCypher(driver, database).run(
        "bfs", topicIds=list(topic_ids), metaPaths=[item.meta_path.as_lists() for item in ranked], queryVector=vector,
        config=dict(config or {}))
    for record in records:
        search.paths.append(EvidencePath(tuple(record["nodeIds"]), tuple(record["names"]), tuple(record["labels"]),
                                         tuple(record["relations"]), tuple(record["outgoing"]), float(record["score"]),
                                         str(record["metaPath"])))
        search.truncated = search.truncated or bool(record["truncated"])
    return search
