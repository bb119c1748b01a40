"""Removing what a load owns: what the current load generation did not write (a reload of fixed files), the
bookkeeping of a load that wrote nothing, or a whole SKB (`grasp skb drop`).

Deletes run in batches of their own transactions, so a large SKB never needs one huge transaction; every
statement is idempotent, so an interrupted drop is finished by running it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction, Session

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.errors import GraspError
from grasp_agent.skb.checkpoint import SCHEMA_KEY_PREFIX, state_key
from grasp_agent.skb.graph_stage import constraint_name
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.vector_indexes import EMBEDDING_PROPERTIES, index_name

DELETE_BATCH = 2000


@dataclass
class Removed:
    nodes: dict[str, int] = field(default_factory=dict)  # label -> nodes deleted
    edges: dict[str, int] = field(default_factory=dict)  # "(:A)-[:T]->(:B)" -> edges deleted

    @property
    def total(self) -> int:
        return sum(self.nodes.values()) + sum(self.edges.values())


def _delete_in_batches(session: Session, query: str, **params: Any) -> int:
    def batch(tx: ManagedTransaction) -> int:
        return int(tx.run(query, batch=DELETE_BATCH, **params).single(strict=True)["deleted"])

    deleted = 0
    while count := session.execute_write(batch):
        deleted += count
    return deleted


def refuse_foreign_nodes(session: Session, schema: SkbSchema) -> None:
    """Nodes without `id` in a schema label were not written by grasp: loading around them would page over
    them forever or mix them into search, so the load stops before writing anything."""
    template = load_statements("skb.cypher")["nodes_without_id"]
    foreign = {
        t.label: session.run(fill_identifiers(template, label=t.label)).single(strict=True)["count"]
        for t in schema.node_types
    }
    foreign = {label: count for label, count in foreign.items() if count}
    if foreign:
        raise GraspError(
            f"the database already holds nodes without an `id` in the schema's labels {foreign}; grasp did "
            "not write them. Remove or relabel them, or load into another instance (GRASP_INSTANCE=...) "
            "or database (GRASP_NEO4J_DATABASE=...)"
        )


def remove_stale_nodes(session: Session, schema: SkbSchema, generation: int) -> dict[str, int]:
    template = load_statements("skb.cypher")["delete_stale_nodes"]
    removed = {
        t.label: _delete_in_batches(session, fill_identifiers(template, label=t.label), generation=generation)
        for t in schema.node_types
    }
    return {label: count for label, count in removed.items() if count}


def remove_stale_edges(session: Session, schema: SkbSchema, generation: int) -> dict[str, int]:
    template = load_statements("skb.cypher")["delete_stale_edges"]
    removed = {}
    for relation in schema.relation_types:
        for pair in relation.pairs:
            query = fill_identifiers(template, source_label=pair.source, type=relation.type, target_label=pair.target)
            if count := _delete_in_batches(session, query, generation=generation):
                removed[f"(:{pair.source})-[:{relation.type}]->(:{pair.target})"] = count
    return removed


def forget_load(session: Session, schema: SkbSchema, drop_constraints: bool) -> None:
    """The load's bookkeeping (schema and progress) and, when asked, its id constraints."""
    statements = load_statements("skb.cypher")
    session.run(statements["delete_meta"], keys=[SCHEMA_KEY_PREFIX + schema.name, state_key(schema.name)]).consume()
    if drop_constraints:
        for node_type in schema.node_types:
            session.run(
                fill_identifiers(statements["drop_constraint"], name=constraint_name(node_type.label))
            ).consume()


def drop_skb(session: Session, schema: SkbSchema) -> Removed:
    """Everything the SKB's load wrote: vector indexes, nodes (with their edges), constraints, the Path-Bank
    built on it, and its bookkeeping. Files on disk (text-branch indexes, vector caches) are keyed by content and
    stay for a later load of the same files."""
    statements = load_statements("skb.cypher")
    removed = Removed()
    for node_type in schema.node_types:
        for kind in EMBEDDING_PROPERTIES:
            session.run(fill_identifiers(statements["drop_index"], name=index_name(node_type.label, kind))).consume()
    for node_type in schema.node_types:
        query = fill_identifiers(statements["delete_label_nodes"], label=node_type.label)
        removed.nodes[node_type.label] = _delete_in_batches(session, query)
    session.run(load_statements("adapath.cypher")["clear_bank"]).consume()
    forget_load(session, schema, drop_constraints=True)
    return removed
