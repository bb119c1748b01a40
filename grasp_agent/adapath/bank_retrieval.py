"""Online Path-Bank retrieval: the meta-paths that the training queries most like the question followed.

One vector query over the bank queries' embeddings (index `adapath_query_embedding`); each of the `queries`
nearest votes with its similarity for the meta-paths it used, so a meta-path many similar queries share wins.
Filters (hop count, topic type, answer type) come from the question's analysis. `relaxed_meta_paths` drops
a filter that leaves nothing (a guessed hop count first, then the answer type) before the caller falls back
to unguided search: a wrong guess should cost precision, not the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.errors import GraspError


@dataclass(frozen=True)
class RankedMetaPath:
    meta_path: MetaPath
    vote: float  # sum of the similarities of the bank queries that used it
    voters: int  # how many of the nearest bank queries used it
    support: int  # how many bank queries in all used it
    examples: tuple[str, ...]  # ids of some voting bank queries
    first_vote: float = 0.0  # the vote of the bank queries for which it was their cheapest meta-path


def meta_path_from_row(row: dict[str, Any]) -> MetaPath:
    try:
        return MetaPath.from_lists(row["labels"], row["relations"], row["outgoing"])
    except ValueError as error:
        raise GraspError(f"stored meta-path {row.get('signature')!r} is inconsistent: {error}") from error


def retrieve_meta_paths(
    driver: Driver,
    database: str,
    query_vector: Sequence[float],
    *,
    queries: int = 20,
    limit: int = 5,
    hops: int | None = None,
    start_label: str | None = None,
    answer_label: str | None = None,
    exclude: Sequence[str] = (),
) -> list[RankedMetaPath]:
    """`exclude`: bank query ids that neither vote nor count among the nearest (leave-template-out)."""
    if queries < 1 or limit < 1:
        raise GraspError(f"queries and limit must be >= 1; got {queries}, {limit}")
    rows = AdaPathCypher(driver, database).run(
        "bank_meta_paths",
        queries=queries,
        queryVector=list(query_vector),
        hops=hops,
        startLabel=start_label,
        answerLabel=answer_label,
        limit=limit,
        exclude=list(exclude),
    )
    return [
        RankedMetaPath(
            meta_path_from_row(row),
            float(row["vote"]),
            int(row["voters"]),
            int(row["support"]),
            tuple(row["examples"]),
            float(row["firstVote"]),
        )
        for row in rows
    ]


@dataclass(frozen=True)
class BankChoice:
    meta_paths: list[RankedMetaPath]
    hops: int | None  # the filters the meta-paths were retrieved under (None: not filtered)
    answer_label: str | None


def relaxed_meta_paths(
    driver: Driver,
    database: str,
    query_vector: Sequence[float],
    *,
    queries: int,
    limit: int,
    hops: int | None,
    answer_label: str | None,
    start_labels: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> BankChoice:
    """Meta-paths under (hops, answer type), else under the answer type alone, else unfiltered; each try
    keeps only meta-paths that start at one of `start_labels` (the topics' types) when those are known."""
    tries = list(dict.fromkeys([(hops, answer_label), (None, answer_label), (None, None)]))
    # Topics may be of several types, so the start-label filter is applied here; ask for more meta-paths than
    # kept so that it still leaves `limit` when some start elsewhere.
    for try_hops, try_answer in tries:
        found = [
            item
            for item in retrieve_meta_paths(
                driver,
                database,
                query_vector,
                queries=queries,
                limit=limit * 4 if start_labels else limit,
                hops=try_hops,
                answer_label=try_answer,
                exclude=exclude,
            )
            if not start_labels or item.meta_path.start_label in start_labels
        ][:limit]
        if found:
            return BankChoice(found, try_hops, try_answer)
    return BankChoice([], None, None)
