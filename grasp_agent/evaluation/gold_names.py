"""The names of each query's gold answers, read from the loaded SKB: what worded answers (EM) are compared with."""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import Driver

from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.evaluation.query_sets import EvalQuery


def gold_names(
    driver: Driver, database: str, labels: Sequence[str], queries: Sequence[EvalQuery]
) -> dict[str, set[str]]:
    """query id -> names of its answer nodes (ids compare as text; an id absent from the SKB has no name)."""
    wanted = sorted({answer for query in queries for answer in query.answer_ids})
    names = {str(node_id): name for node_id, name, _ in AdaPathCypher(driver, database).named_nodes(labels, wanted)}
    return {query.id: {names[answer] for answer in query.answer_ids if answer in names} for query in queries}
