"""Online Path-Bank retrieval: the meta-paths that the training queries most like the question followed.

One vector query over the bank queries' embeddings (index `adapath_query_embedding`); each of the `queries`
nearest votes with its similarity for the meta-paths it used, so a meta-path many similar queries share wins.
Filters (hop count, topic type, answer type) come from the question's analysis; with no match the caller
falls back to unguided search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

from grasp_agent.adapath.metapath import MetaPath, MetaPathStep
from grasp_agent.cypher_queries import load_statements
from grasp_agent.errors import GraspError


@dataclass(frozen=True)
class RankedMetaPath:
    meta_path: MetaPath
    vote: float  # sum of the similarities of the bank queries that used it
    voters: int  # how many of the nearest bank queries used it
    support: int  # how many bank queries in all used it
    examples: tuple[str, ...]  # ids of some voting bank queries


def meta_path_from_row(row: dict[str, Any]) -> MetaPath:
    labels, relations, outgoing = list(row["labels"]), list(row["relations"]), list(row["outgoing"])
    if len(labels) != len(relations) + 1 or len(relations) != len(outgoing):
        raise GraspError(f"stored meta-path {row.get('signature')!r} is inconsistent: {labels}, {relations}, {outgoing}")
    steps = tuple(MetaPathStep(relation, bool(out), label)
                  for relation, out, label in zip(relations, outgoing, labels[1:], strict=True))
    return MetaPath(labels[0], steps)


def retrieve_meta_paths(driver: Driver, database: str, query_vector: Sequence[float], *, queries: int = 20,
                        limit: int = 5, hops: int | None = None, start_label: str | None = None,
                        answer_label: str | None = None) -> list[RankedMetaPath]:
    if queries < 1 or limit < 1:
        raise GraspError(f"queries and limit must be >= 1; got {queries}, {limit}")
    records, _, _ = driver.execute_query(
        load_statements("adapath.cypher")["bank_meta_paths"],
        {"queries": queries, "queryVector": list(query_vector), "hops": hops, "startLabel": start_label,
         "answerLabel": answer_label, "limit": limit}, database_=database)
    return [RankedMetaPath(meta_path_from_row(row), float(row["vote"]), int(row["voters"]), int(row["support"]),
                           tuple(row["examples"])) for row in (record.data() for record in records)]
