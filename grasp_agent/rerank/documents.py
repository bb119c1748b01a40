"""Candidate documents for the reranker, rendered for the query at hand.

The stored node document lists the most *specific* neighbours per relation; a reranker judging one query
is better served by the neighbours *closest to that query* (GRASP's serializer), so each relation line here
lists up to `max_names` neighbour names ordered by cosine(query, neighbour name embedding). The rest of the
document (header, text fields, token budget) is `skb.documents.render_document`, shared with the loader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from neo4j import Driver

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.ranking import NodeId
from grasp_agent.skb.documents import DocumentBudget, NeighbourGroup, TokenCounter, render_document
from grasp_agent.skb.schema import SkbSchema

RERANK_NEIGHBOURS = 10  # names per relation line
RERANK_BUDGET = DocumentBudget(max_neighbours=RERANK_NEIGHBOURS)


@dataclass(frozen=True)
class CandidateDocument:
    node_id: NodeId
    label: str
    name: str
    text: str


def candidate_documents(
    driver: Driver,
    database: str,
    schema: SkbSchema,
    ids_by_label: Mapping[str, Sequence[NodeId]],
    query_vector: Sequence[float],
    count_tokens: TokenCounter,
    *,
    budget: DocumentBudget = RERANK_BUDGET,
) -> dict[NodeId, CandidateDocument]:
    """Documents of the given nodes (grouped by label, which must be schema labels); ids not found are absent."""
    statement = load_statements("rerank.cypher")["candidate_documents"]
    vector = [float(value) for value in query_vector]
    documents: dict[NodeId, CandidateDocument] = {}
    for label, ids in ids_by_label.items():
        if not ids:
            continue
        node_type = schema.node_type(label)  # SchemaError for a label the SKB does not have
        records, _, _ = driver.execute_query(
            fill_identifiers(statement, label=label),
            ids=list(ids),
            vector=vector,
            fields=list(node_type.text_fields),
            max_names=budget.max_neighbours,
            database_=database,
            routing_="r",
        )
        for record in records:
            properties = dict(zip(node_type.text_fields, record["values"], strict=True))
            groups = [
                NeighbourGroup(
                    group["relation"],
                    bool(group["outgoing"]),
                    group["other_label"] or "?",
                    tuple(str(name) for name in group["names"] if name is not None),
                    int(group["total"]),
                )
                for group in record["groups"]
            ]
            name = record["name"] or str(record["id"])
            text = render_document(node_type, name, properties, groups, count_tokens, budget)
            documents[record["id"]] = CandidateDocument(record["id"], label, name, text)
    return documents
