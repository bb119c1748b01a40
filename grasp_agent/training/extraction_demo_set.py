"""`grasp train demos`: the LLM extractor's demonstrations, derived from a question set's training split and the
loaded SKB's node names and types (see graph_branch.extraction_demos for what a demonstration holds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from neo4j import Driver

from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.extraction_demos import ExtractionDemo, LabelledNode, derive_demo, write_demos
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.training.fit import of_split


@dataclass(frozen=True)
class DemoSetOutcome:
    demos: tuple[ExtractionDemo, ...]
    considered: int  # the training questions looked at
    split: str | None  # None: the question set has no splits, so all its questions were used
    path: Path


def build_extraction_demos(
    driver: Driver, database: str, schema: SkbSchema, queries: Sequence[EvalQuery], split: str, out: Path
) -> DemoSetOutcome:
    """Demonstrations from the `split` questions (all of them when no question has a split), written to `out`.
    Never from another split: the evaluation's own questions must not be shown their answers."""
    has_splits = any(query.split is not None for query in queries)
    chosen = of_split(queries, split) if has_splits else list(queries)
    if not chosen:
        raise ValueError(f"the question set has no {split!r} questions to derive demonstrations from")
    ids = sorted({node for query in chosen for node in (*query.topic_ids, *query.answer_ids)})
    labels = [node_type.label for node_type in schema.node_types]
    nodes = {
        str(node_id): LabelledNode(label=label, name=name)
        for node_id, name, label in AdaPathCypher(driver, database).named_nodes(labels, ids)
    }
    demos = tuple(
        demo
        for query in chosen
        if (demo := derive_demo(query.id, query.text, query.topic_ids, query.answer_ids, nodes, schema)) is not None
    )
    write_demos(out, demos)
    return DemoSetOutcome(demos, len(chosen), split if has_splits else None, out)
