"""Writes an SKB's nodes and edges: batched `UNWIND $rows` MERGEs, one checkpoint per committed batch."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from neo4j import ManagedTransaction, Session
from tqdm import tqdm

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.errors import SourceFormatError
from grasp_agent.skb.checkpoint import LoadState, write_state
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord, PropertyValue, SkbSource
from grasp_agent.terminal_text import printable

T = TypeVar("T")


@dataclass
class GraphWriteCounts:
    nodes: Counter[str] = field(default_factory=Counter)
    edges: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    edges_missing_endpoint: int = 0


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def constraint_name(label: str) -> str:
    return f"grasp_{label.lower()}_id"


def create_constraints(session: Session, schema: SkbSchema) -> None:
    """One uniqueness constraint per node type on `id`; it is also the index edges look endpoints up by."""
    template = load_statements("skb.cypher")["node_constraint"]
    for node_type in schema.node_types:
        query = fill_identifiers(template, label=node_type.label)
        session.run(query, name=constraint_name(node_type.label)).consume()


def _check_node(schema: SkbSchema, record: NodeRecord) -> None:
    if not printable(record.name).strip():
        raise SourceFormatError(
            record.label, None, f"node {record.id!r} has a name of control characters only: {record.name!r}"
        )
    node_type = schema.node_type(record.label)
    unknown = set(record.properties) - set(node_type.text_fields)
    if unknown:
        raise SourceFormatError(
            record.label,
            None,
            f"node {record.id!r} has properties {sorted(unknown)} that the "
            f"schema does not list for {record.label}; allowed: {list(node_type.text_fields)}",
        )


def _check_edge(declared: set[tuple[str, str, str]], edge: EdgeRecord) -> None:
    if (edge.source_label, edge.type, edge.target_label) not in declared:
        raise SourceFormatError(
            edge.type,
            None,
            f"edge {edge.source_id!r}->{edge.target_id!r} is "
            f"(:{edge.source_label})-[:{edge.type}]->(:{edge.target_label}), which the schema "
            f"does not declare; declared: {sorted(declared)}",
        )


def node_row(schema: SkbSchema, record: NodeRecord) -> dict[str, object]:
    """A node as the merge query writes it: every text field of its type, absent ones as null (`SET n += ...`
    then removes a field that a fixed file no longer gives, so a reload converges to the files), and the name
    and text fields without control characters (escape sequences would reach every terminal that shows them).
    The id is kept exactly: it is the source's public id."""
    fields: dict[str, PropertyValue | None] = dict.fromkeys(schema.node_type(record.label).text_fields)
    fields.update({key: _printable_value(value) for key, value in record.properties.items()})
    return {"id": record.id, "name": printable(record.name), "properties": fields}


def _printable_value(value: PropertyValue) -> PropertyValue:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [printable(item) for item in value if isinstance(item, str)]
    return value


def _write_node_batch(
    tx: ManagedTransaction, schema: SkbSchema, batch: list[NodeRecord], state: LoadState
) -> Counter[str]:
    template = load_statements("skb.cypher")["merge_nodes"]
    by_label: dict[str, list[dict[str, object]]] = defaultdict(list)
    for record in batch:
        by_label[record.label].append(node_row(schema, record))
    written: Counter[str] = Counter()
    for label, rows in by_label.items():
        result = tx.run(fill_identifiers(template, label=label), rows=rows, generation=state.generation).single(
            strict=True
        )
        written[label] += result["written"]
    # A copy: execute_write may retry this function, and the caller's state must only move on commit.
    write_state(tx, state.model_copy(update={"nodes_done": state.nodes_done + len(batch)}))
    return written


def _write_edge_batch(
    tx: ManagedTransaction, batch: list[EdgeRecord], state: LoadState
) -> tuple[Counter[tuple[str, str, str]], int]:
    template = load_statements("skb.cypher")["merge_edges"]
    groups: dict[tuple[str, str, str], list[dict[str, object]]] = defaultdict(list)
    for edge in batch:
        groups[(edge.source_label, edge.type, edge.target_label)].append(
            {"source": edge.source_id, "target": edge.target_id, "properties": edge.properties}
        )
    written: Counter[tuple[str, str, str]] = Counter()
    missing = 0
    for (source_label, rel_type, target_label), rows in groups.items():
        query = fill_identifiers(template, source_label=source_label, type=rel_type, target_label=target_label)
        count = tx.run(query, rows=rows, generation=state.generation).single(strict=True)["written"]
        written[(source_label, rel_type, target_label)] += count
        missing += len(rows) - count
    write_state(tx, state.model_copy(update={"edges_done": state.edges_done + len(batch)}))
    return written, missing


def write_nodes(
    session: Session, source: SkbSource, state: LoadState, batch_size: int, counts: GraphWriteCounts, progress: bool
) -> None:
    schema = source.schema()
    total, _ = source.size_hint()
    remaining = itertools.islice(source.nodes(), state.nodes_done, None)
    with tqdm(total=total, initial=state.nodes_done, desc="nodes", unit="node", disable=not progress) as bar:
        for batch in batched(remaining, batch_size):
            for record in batch:
                _check_node(schema, record)
            counts.nodes.update(session.execute_write(_write_node_batch, schema, batch, state))
            state.nodes_done += len(batch)
            bar.update(len(batch))
    state.nodes_complete = True
    session.execute_write(write_state, state)


def write_edges(
    session: Session, source: SkbSource, state: LoadState, batch_size: int, counts: GraphWriteCounts, progress: bool
) -> None:
    _, total = source.size_hint()
    declared = {(pair.source, rel.type, pair.target) for rel in source.schema().relation_types for pair in rel.pairs}
    remaining = itertools.islice(source.edges(), state.edges_done, None)
    with tqdm(total=total, initial=state.edges_done, desc="edges", unit="edge", disable=not progress) as bar:
        for batch in batched(remaining, batch_size):
            for edge in batch:
                _check_edge(declared, edge)
            written, missing = session.execute_write(_write_edge_batch, batch, state)
            state.edges_done += len(batch)
            counts.edges.update(written)
            counts.edges_missing_endpoint += missing
            bar.update(len(batch))
    state.edges_complete = True
    session.execute_write(write_state, state)
