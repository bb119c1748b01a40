"""Renders every node's document from the loaded graph and writes its name and document embeddings.

Runs after all nodes and edges are in (documents list neighbour names). Per label it pages through nodes in
id order; a node whose stored `doc_hash` already matches (same document, same model) is not re-embedded,
and each page commits together with its checkpoint, so the stage is idempotent and resumable.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import cast

from neo4j import ManagedTransaction, Session
from tqdm import tqdm

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.skb.checkpoint import LoadState, write_state
from grasp_agent.skb.documents import DocumentBudget, NeighbourGroup, render_document
from grasp_agent.skb.schema import NodeType, SkbSchema

NAME_MAX_TOKENS = 64  # GRASP truncates names at 64 tokens (documents: DocumentBudget.for_model)


@dataclass(frozen=True)
class GroupSpec:
    """One relation line of a label's documents: type, stored direction and the label at the other end."""

    relation: str
    outgoing: bool
    other_label: str


@dataclass(frozen=True)
class StageEmbedders:
    """Names and documents are truncated differently, so they get sibling embedders (and cache keys)."""

    names: GraspEmbedder
    docs: GraspEmbedder

    @classmethod
    def for_budget(cls, embedder: GraspEmbedder, budget: DocumentBudget) -> StageEmbedders:
        return cls(names=embedder.with_max_tokens(NAME_MAX_TOKENS), docs=embedder.with_max_tokens(budget.max_tokens))

    def document_hash(self, doc: str) -> str:
        """What a node stores as `doc_hash`: its document under both model ids, so a stored hash proves which
        models made the stored vectors (the load skips nodes whose hash still matches)."""
        return hashlib.sha256(f"{self.docs.model_id}\0{self.names.model_id}\0{doc}".encode()).hexdigest()


@dataclass
class EmbeddingCounts:
    embedded: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)
    texts: int = 0
    packed: int = 0  # of `texts`, answered by a vector pack (not embedded)
    seconds: float = 0.0


def group_specs(schema: SkbSchema, label: str) -> list[GroupSpec]:
    specs = set()
    for relation in schema.relation_types:
        for pair in relation.pairs:
            if pair.source == label:
                specs.add(GroupSpec(relation.type, True, pair.target))
            if pair.target == label:
                specs.add(GroupSpec(relation.type, False, pair.source))
    return sorted(specs, key=lambda s: (s.relation, not s.outgoing, s.other_label))


def _neighbours(
    session: Session, label: str, ids: list[object], spec: GroupSpec, limit: int
) -> dict[object, NeighbourGroup]:
    name = "outgoing_neighbours" if spec.outgoing else "incoming_neighbours"
    query = fill_identifiers(
        load_statements("skb.cypher")[name], label=label, type=spec.relation, other_label=spec.other_label
    )
    return {
        row["node_id"]: NeighbourGroup(
            spec.relation, spec.outgoing, spec.other_label, tuple(row["names"]), row["total"]
        )
        for row in session.run(query, ids=ids, limit=limit)
    }


def _write_page(
    tx: ManagedTransaction, label: str, rows: list[dict[str, object]], state: LoadState, last_id: object
) -> None:
    if rows:
        query = fill_identifiers(load_statements("skb.cypher")["set_documents"], label=label)
        tx.run(query, rows=rows).consume()
    after = {**state.documents_after, label: last_id}
    write_state(tx, state.model_copy(update={"documents_after": after}))


def embed_label(
    session: Session,
    schema: SkbSchema,
    node_type: NodeType,
    embedders: StageEmbedders,
    state: LoadState,
    counts: EmbeddingCounts,
    budget: DocumentBudget,
    page_size: int,
    progress: bool,
) -> None:
    label = node_type.label
    page_query = fill_identifiers(load_statements("skb.cypher")["node_page"], label=label)
    total = session.run(fill_identifiers(load_statements("skb.cypher")["label_count"], label=label)).single(strict=True)
    specs = group_specs(schema, label)
    after = state.documents_after.get(label)
    with tqdm(total=total["count"], desc=f"embed {label}", unit="node", disable=not progress) as bar:
        while True:
            page = session.run(page_query, after=after, fields=list(node_type.text_fields), limit=page_size).data()
            if not page:
                break
            ids = [row["id"] for row in page]
            groups = [_neighbours(session, label, ids, spec, budget.max_neighbours) for spec in specs]
            rows = _embed_page(node_type, page, groups, embedders, budget, counts)
            session.execute_write(_write_page, label, rows, state, ids[-1])
            state.documents_after[label] = ids[-1]
            after = ids[-1]
            counts.embedded[label] = counts.embedded.get(label, 0) + len(rows)
            counts.unchanged[label] = counts.unchanged.get(label, 0) + len(page) - len(rows)
            bar.update(len(page))
    if label not in state.documents_complete:
        state.documents_complete.append(label)


def _pack_hits(embedders: StageEmbedders) -> int:
    return sum(
        embedder.pack_hits for embedder in (embedders.names, embedders.docs) if isinstance(embedder, CachedEmbedder)
    )


def _embed_page(
    node_type: NodeType,
    page: list[dict[str, object]],
    groups: list[dict[object, NeighbourGroup]],
    embedders: StageEmbedders,
    budget: DocumentBudget,
    counts: EmbeddingCounts,
) -> list[dict[str, object]]:
    todo: list[tuple[object, str, str, str]] = []  # id, name, doc, hash
    for row in page:
        values = cast(list[object], row["values"])  # node_page returns one list of field values per row
        properties = dict(zip(node_type.text_fields, values, strict=True))
        neighbours = [group[row["id"]] for group in groups if row["id"] in group]
        name = str(row["name"] or "")
        doc = render_document(node_type, name, properties, neighbours, embedders.docs.count_tokens, budget)
        doc_hash = embedders.document_hash(doc)
        if doc_hash != row["doc_hash"]:
            todo.append((row["id"], name, doc, doc_hash))
    if not todo:
        return []
    started, packed_before = time.monotonic(), _pack_hits(embedders)
    name_vectors = embedders.names.embed_texts([item[1] for item in todo])
    doc_vectors = embedders.docs.embed_texts([item[2] for item in todo])
    counts.seconds += time.monotonic() - started
    counts.packed += _pack_hits(embedders) - packed_before
    counts.texts += 2 * len(todo)
    return [
        {
            "id": node_id,
            "doc": doc,
            "doc_hash": doc_hash,
            "name_vector": name_vectors[i].tolist(),
            "doc_vector": doc_vectors[i].tolist(),
        }
        for i, (node_id, _, doc, doc_hash) in enumerate(todo)
    ]
