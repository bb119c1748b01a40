"""`grasp train answer-types`: the answer-type prior of a question set's training split (see
graph_branch.answer_types), with the node types read from the loaded SKB."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from neo4j import Driver

from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.answer_types import AnswerTypePrior, fit_answer_type_prior, write_prior
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.training.fit import of_split


def fit_answer_types(
    driver: Driver, database: str, schema: SkbSchema, queries: Sequence[EvalQuery], split: str, out: Path
) -> AnswerTypePrior:
    """The prior of the `split` questions (all of them when the set has no splits), written to `out`. Never from
    another split: the valid and test questions' answers stay unseen."""
    has_splits = any(query.split is not None for query in queries)
    chosen = of_split(queries, split) if has_splits else list(queries)
    if not chosen:
        raise ValueError(f"the question set has no {split!r} questions to fit the answer-type prior on")
    ids = sorted({node for query in chosen for node in (*query.topic_ids, *query.answer_ids)})
    labels = {
        str(node_id): label
        for node_id, _, label in AdaPathCypher(driver, database).named_nodes([t.label for t in schema.node_types], ids)
    }
    prior = fit_answer_type_prior(schema.name, ((query.topic_ids, query.answer_ids) for query in chosen), labels)
    write_prior(out, prior)
    return prior
