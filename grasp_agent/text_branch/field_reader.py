"""Streams `NodeFields` out of a loaded SKB: per label, pages in id order, one query per relation field.

Read-only and resumable by construction (keyset pagination on the unique `id`); every value is a
parameter and every label or relation type passes `fill_identifiers`. Relation fields follow the order of
`fields.fields_from_records` (fewest relationships first, then name), so both builders agree.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from neo4j import Session
from tqdm import tqdm

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.skb.schema import NodeType, SkbSchema
from grasp_agent.text_branch.fields import (
    DEFAULT_MAX_NAMES,
    NAME_FIELD,
    NAME_SEPARATOR,
    NodeFields,
    NodeId,
    field_specs,
    field_text,
    relations_of,
)

DEFAULT_PAGE_SIZE = 1000


def _float32(vector: list[float]) -> np.ndarray:
    return np.asarray(vector, dtype=np.float32)


def read_node_fields(
    session: Session,
    schema: SkbSchema,
    *,
    page_size: int = DEFAULT_PAGE_SIZE,
    max_names: int = DEFAULT_MAX_NAMES,
    progress: bool = False,
) -> Iterator[NodeFields]:
    """Every node of every schema type with its field texts and stored document, type by type."""
    field_specs(schema)  # reject colliding field names before reading anything
    for node_type in schema.node_types:
        yield from _read_label(session, schema, node_type, page_size, max_names, progress)


def _read_label(
    session: Session, schema: SkbSchema, node_type: NodeType, page_size: int, max_names: int, progress: bool
) -> Iterator[NodeFields]:
    label = node_type.label
    page_query = fill_identifiers(load_statements("text_branch.cypher")["field_page"], label=label)
    count_query = fill_identifiers(load_statements("skb.cypher")["label_count"], label=label)
    total = session.run(count_query).single(strict=True)["count"]
    relations = relations_of(schema, label)
    after: NodeId | None = None
    with tqdm(total=total, desc=f"fields {label}", unit="node", disable=not progress) as bar:
        while page := session.run(page_query, after=after, fields=list(node_type.text_fields), limit=page_size).data():
            ids = [row["id"] for row in page]
            names = {relation: _relation_names(session, label, relation, ids, max_names) for relation in relations}
            for row in page:
                texts = {NAME_FIELD: field_text(row["name"])}
                texts.update(
                    {name: field_text(value) for name, value in zip(node_type.text_fields, row["values"], strict=True)}
                )
                texts.update(
                    {relation: NAME_SEPARATOR.join(by_id.get(row["id"], [])) for relation, by_id in names.items()}
                )
                vector, name_vector = row["doc_vector"], row["name_vector"]
                yield NodeFields(
                    row["id"],
                    label,
                    texts,
                    row["doc"] or "",
                    _float32(vector) if vector is not None and row["doc"] else None,
                    _float32(name_vector) if name_vector is not None and texts[NAME_FIELD] else None,
                )
            after = ids[-1]
            bar.update(len(page))


def _relation_names(
    session: Session, label: str, relation: str, ids: list[NodeId], limit: int
) -> dict[NodeId, list[str]]:
    query = fill_identifiers(load_statements("text_branch.cypher")["relation_names"], label=label, type=relation)
    return {
        row["node_id"]: [str(name) for name in row["names"] if name is not None]
        for row in session.run(query, ids=ids, limit=limit)
    }
