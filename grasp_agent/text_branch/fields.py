"""The mFAR field model of an SKB node: attribute fields and relation fields, as aligned text columns.

Every node has one text per field of the SKB (empty where its type lacks the field):

    attribute fields  `name`, then each text field of the schema's node types (first-seen order)
    relation fields   one per relation type: names of the node's neighbours over it, either direction,
                      at most `max_names`, most specific first (fewest relationships, then name)

plus its whole serialized document (`doc`), the single-field baseline. Ordering neighbours by degree is
what `skb.cypher`'s neighbour queries already do for documents: a low-degree neighbour ("Focal clonic
seizure") says more about a node than a hub ("Phenotypic abnormality"), and the degree is a constant-time
lookup in Neo4j, so the bounded list keeps the informative names at no extra cost.

`fields_from_records` builds the fields from source records (tests, offline use); `field_reader` streams
them from a loaded Neo4j database. Both yield `NodeFields`, which `FieldCorpus.from_nodes` collects.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from grasp_agent.errors import GraspError, SchemaError
from grasp_agent.ranking import NodeId
from grasp_agent.skb.documents import DocumentBudget, NeighbourGroup, TokenCounter, render_document
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord

NAME_FIELD = "name"
DOC_FIELD = "doc"  # reserved: the whole-document index, not an mFAR field
DEFAULT_MAX_NAMES = 50  # neighbour names per relation field
NAME_SEPARATOR = "; "  # between list items and neighbour names; names themselves may contain commas


class TextBranchError(GraspError):
    """A text index or field combination got a field, node type or input it does not know.

    (Belongs in grasp_agent/errors.py next to the other subclasses.)
    """


@dataclass(frozen=True)
class FieldSpec:
    name: str
    kind: Literal["attribute", "relation"]


@dataclass(frozen=True)
class NodeFields:
    """One node's field texts, as both readers yield them; a field absent from `texts` is empty."""

    id: NodeId
    label: str
    texts: Mapping[str, str]
    doc: str = ""
    # The stored embeddings, when read from Neo4j: float32 arrays, since an index build holds every node at
    # once (a tuple of Python floats costs ~12 KB per 384-dim vector, the array 1.5 KB).
    doc_vector: np.ndarray | None = field(default=None, compare=False)  # the document's
    name_vector: np.ndarray | None = field(default=None, compare=False)  # the name's (cut at 64 tokens)


class NodePositions:
    """Where the nodes of a corpus sit: each id's corpus row, and its position in a field's arrays (a field
    holds only the nodes with text in it, in the corpus rows it lists). Both maps are built on first use, so
    opening an index costs nothing until a lookup needs them."""

    def __init__(self, ids: Sequence[NodeId]) -> None:
        self._ids = ids
        self._row: dict[NodeId, int] | None = None
        self._in_field: dict[str, np.ndarray] = {}  # field -> position of each corpus row there (-1: none)

    @property
    def row_of(self) -> Mapping[NodeId, int]:
        if self._row is None:
            self._row = {node_id: row for row, node_id in enumerate(self._ids)}
        return self._row

    def in_field(self, field: str, field_rows: np.ndarray, ids: Sequence[NodeId]) -> np.ndarray:
        """int64 (len(ids),): each node's position in `field`, whose arrays hold the corpus rows `field_rows`;
        -1 for a node without text there or not in the corpus."""
        if field not in self._in_field:
            position = np.full(len(self._ids), -1, dtype=np.int64)
            position[field_rows] = np.arange(len(field_rows))
            self._in_field[field] = position
        row_of = self.row_of
        rows = np.asarray([row_of.get(node_id, -1) for node_id in ids], dtype=np.int64)
        return np.where(rows >= 0, self._in_field[field][np.maximum(rows, 0)], -1)


@dataclass(frozen=True)
class ScoredNodes:
    """A ranking from one source (a field's BM25, the document, a combination), best first."""

    source: str
    ids: tuple[NodeId, ...] = ()
    scores: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.scores):
            raise TextBranchError(f"ranking '{self.source}' has {len(self.ids)} ids but {len(self.scores)} scores")

    def __len__(self) -> int:
        return len(self.ids)


def field_specs(schema: SkbSchema) -> tuple[FieldSpec, ...]:
    """The SKB's fields in a fixed order: name, text fields (first-seen order), relation types (schema order)."""
    specs: dict[str, FieldSpec] = {NAME_FIELD: FieldSpec(NAME_FIELD, "attribute")}
    for node_type in schema.node_types:
        for text_field in node_type.text_fields:
            specs.setdefault(text_field, FieldSpec(text_field, "attribute"))
    for relation in schema.relation_types:
        if relation.type in specs:
            raise SchemaError(
                f"relation type '{relation.type}' has the name of a text field; field names must "
                f"be unique across attributes and relations, taken: {sorted(specs)}"
            )
        specs[relation.type] = FieldSpec(relation.type, "relation")
    if DOC_FIELD in specs:
        raise SchemaError(
            f"'{DOC_FIELD}' is reserved for the node document and cannot be a field; "
            f"rename it in schema '{schema.name}'"
        )
    return tuple(specs.values())


def relations_of(schema: SkbSchema, label: str) -> tuple[str, ...]:
    """Relation types with `label` at either end, in schema order: the relation fields its nodes can fill."""
    return tuple(
        relation.type
        for relation in schema.relation_types
        if any(label in (pair.source, pair.target) for pair in relation.pairs)
    )


def field_text(value: object) -> str:
    """A property value as field text: lists joined like the document renders them, None as empty."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return NAME_SEPARATOR.join(str(item).strip() for item in value if str(item).strip())
    return str(value).strip()


@dataclass(frozen=True)
class FieldCorpus:
    """Field texts of every node, as columns aligned with `ids` (row i is node ids[i] of type labels[i])."""

    ids: tuple[NodeId, ...]
    labels: tuple[str, ...]
    fields: Mapping[str, tuple[str, ...]]  # field name -> text per row
    documents: tuple[str, ...]
    node_types: tuple[str, ...] = field(default=())  # every type a query may filter on, even with no node

    def __post_init__(self) -> None:
        rows = len(self.ids)
        columns = {"labels": self.labels, "documents": self.documents, **self.fields}
        misaligned = {name: len(column) for name, column in columns.items() if len(column) != rows}
        if misaligned:
            raise TextBranchError(f"field corpus columns must have one entry per id ({rows}); got {misaligned}")
        duplicates = [node_id for node_id, count in Counter(self.ids).items() if count > 1]
        if duplicates:
            raise TextBranchError(f"node ids must be unique across types; repeated: {duplicates[:5]}")
        if DOC_FIELD in self.fields:
            raise TextBranchError(f"'{DOC_FIELD}' is reserved for the documents column, not a field")
        if not self.node_types:
            object.__setattr__(self, "node_types", tuple(dict.fromkeys(self.labels)))
        undeclared = set(self.labels) - set(self.node_types)
        if undeclared:
            raise TextBranchError(f"nodes have types {sorted(undeclared)} outside node_types {list(self.node_types)}")

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def from_nodes(
        cls, nodes: Iterable[NodeFields], field_names: Sequence[str], node_types: Sequence[str] = ()
    ) -> FieldCorpus:
        ids: list[NodeId] = []
        labels: list[str] = []
        documents: list[str] = []
        columns: dict[str, list[str]] = {name: [] for name in field_names}
        for node in nodes:
            unknown = set(node.texts) - columns.keys()
            if unknown:
                raise TextBranchError(f"node {node.id!r} has fields {sorted(unknown)}; known: {list(field_names)}")
            ids.append(node.id)
            labels.append(node.label)
            documents.append(node.doc)
            for name, column in columns.items():
                column.append(node.texts.get(name, ""))
        return cls(
            tuple(ids),
            tuple(labels),
            {name: tuple(column) for name, column in columns.items()},
            tuple(documents),
            tuple(node_types),
        )

    @classmethod
    def from_schema_nodes(cls, schema: SkbSchema, nodes: Iterable[NodeFields]) -> FieldCorpus:
        return cls.from_nodes(
            nodes, [spec.name for spec in field_specs(schema)], [node_type.label for node_type in schema.node_types]
        )


@dataclass(frozen=True)
class _Neighbour:
    relation: str
    outgoing: bool
    other: NodeId


def fields_from_records(
    schema: SkbSchema,
    nodes: Iterable[NodeRecord],
    edges: Iterable[EdgeRecord],
    *,
    max_names: int = DEFAULT_MAX_NAMES,
    count_tokens: TokenCounter | None = None,
    budget: DocumentBudget = DocumentBudget(),
) -> Iterator[NodeFields]:
    """Fields of source records, with documents rendered as the loader renders them (`render_document`).

    `count_tokens` defaults to a word count (the embedder's own tokenizer in the loader). Holds all records
    in memory: meant for tests and small SKBs; a loaded database is read with `field_reader`.
    """
    field_specs(schema)  # reject colliding field names before any work
    counter = count_tokens or (lambda text: len(text.split()))
    records = {record.id: record for record in nodes}
    adjacency: dict[NodeId, list[_Neighbour]] = defaultdict(list)
    degree: Counter[NodeId] = Counter()
    for edge in edges:
        adjacency[edge.source_id].append(_Neighbour(edge.type, True, edge.target_id))
        adjacency[edge.target_id].append(_Neighbour(edge.type, False, edge.source_id))
        degree.update({edge.source_id, edge.target_id})  # a set: a self-loop counts once, as (m)--() does

    def specificity(node_id: NodeId) -> tuple[int, str]:
        return degree[node_id], records[node_id].name

    for record in records.values():
        neighbours = [n for n in adjacency.get(record.id, []) if n.other in records]
        texts = {NAME_FIELD: record.name.strip()}
        texts.update({name: field_text(value) for name, value in record.properties.items()})
        for relation in relations_of(schema, record.label):
            others = sorted({n.other for n in neighbours if n.relation == relation}, key=specificity)
            texts[relation] = NAME_SEPARATOR.join(records[other].name for other in others[:max_names])
        groups = _neighbour_groups(neighbours, records, specificity, budget.max_neighbours)
        node_type = schema.node_type(record.label)
        doc = render_document(node_type, record.name, record.properties, groups, counter, budget)
        yield NodeFields(record.id, record.label, texts, doc)


def _neighbour_groups(
    neighbours: list[_Neighbour],
    records: Mapping[NodeId, NodeRecord],
    specificity: Callable[[NodeId], tuple[int, str]],
    limit: int,
) -> list[NeighbourGroup]:
    """The document's relation lines: per (relation, stored direction, other label), distinct neighbours."""
    grouped: dict[tuple[str, bool, str], set[NodeId]] = defaultdict(set)
    for neighbour in neighbours:
        grouped[(neighbour.relation, neighbour.outgoing, records[neighbour.other].label)].add(neighbour.other)
    groups = []
    for (relation, outgoing, other_label), others in grouped.items():
        ordered = sorted(others, key=specificity)
        names = tuple(records[other].name for other in ordered[:limit])
        groups.append(NeighbourGroup(relation, outgoing, other_label, names, len(others)))
    return groups
