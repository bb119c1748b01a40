"""Loads one SKB source into Neo4j: constraints, nodes, edges, documents + embeddings, vector indexes.

Idempotent and resumable: progress lives in the database (see checkpoint.py). Loading the same source
with the same embedder again is a no-op; an interrupted load continues after the last committed batch.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from neo4j import Driver, Session

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.db.schema import apply_schema
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError
from grasp_agent.skb.checkpoint import SCHEMA_KEY_PREFIX, LoadState, read_state, write_meta, write_state
from grasp_agent.skb.cleanup import forget_load, refuse_foreign_nodes, remove_stale_edges, remove_stale_nodes
from grasp_agent.skb.documents import DocumentBudget
from grasp_agent.skb.embedding_stage import EmbeddingCounts, StageEmbedders, embed_label
from grasp_agent.skb.graph_stage import GraphWriteCounts, create_constraints, write_edges, write_nodes
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.source import SkbSource
from grasp_agent.skb.vector_indexes import create_vector_indexes, wait_until_online

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoadOptions:
    batch_size: int = 2000
    page_size: int = 256
    force: bool = False
    progress: bool = True
    budget: DocumentBudget | None = None  # None: cut documents where the embedder cuts (DocumentBudget.for_model)


@dataclass
class LoadSummary:
    skb: str
    already_loaded: bool
    nodes: dict[str, int] = field(default_factory=dict)  # per label, as counted in the database afterwards
    edges: dict[str, int] = field(default_factory=dict)  # "(:A)-[:T]->(:B)" -> count
    skipped: dict[str, int] = field(default_factory=dict)
    edges_missing_endpoint: int = 0
    stale_nodes_removed: dict[str, int] = field(default_factory=dict)  # a reload: nodes the files no longer hold
    stale_edges_removed: dict[str, int] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    embedded_texts: int = 0
    packed_texts: int = 0  # of embedded_texts, looked up in a vector pack
    embedding_seconds: float = 0.0

    @property
    def total_seconds(self) -> float:
        return sum(self.stage_seconds.values())

    @property
    def nodes_per_second(self) -> float:
        seconds = self.total_seconds
        return sum(self.nodes.values()) / seconds if seconds else 0.0

    @property
    def embeddings_per_second(self) -> float:
        return self.embedded_texts / self.embedding_seconds if self.embedding_seconds else 0.0


def _other_loaded_skb(session: Session, name: str) -> str | None:
    rows = session.run(
        "MATCH (m:GraspMeta) WHERE m.key STARTS WITH $prefix RETURN m.key AS key", prefix=SCHEMA_KEY_PREFIX
    ).data()
    others = [row["key"].removeprefix(SCHEMA_KEY_PREFIX) for row in rows if row["key"] != SCHEMA_KEY_PREFIX + name]
    return others[0] if others else None


def describes_same_data(stored: SkbSchema, current: SkbSchema) -> bool:
    """Whether two schemas differ only in what describes the data (descriptions, type aliases, synonym fields,
    relation phrases and nouns), not in what the load writes from it (labels, text fields, relations): then the
    stored one can be replaced without reloading."""

    def written(schema: SkbSchema) -> object:
        return (
            schema.name,
            [(t.label, t.name_field, t.text_fields) for t in schema.node_types],
            [(r.type, r.pairs) for r in schema.relation_types],
        )

    return written(stored) == written(current)


def read_schema(session: Session, name: str) -> SkbSchema | None:
    """The schema stored at load time (text fields, descriptions: what grasp.schema() cannot know)."""
    rows = session.run(load_statements("skb.cypher")["read_meta"], key=SCHEMA_KEY_PREFIX + name).data()
    return SkbSchema.from_json(rows[0]["value"], f"GraspMeta {SCHEMA_KEY_PREFIX}{name}") if rows else None


def count_in_database(session: Session, schema: SkbSchema) -> tuple[dict[str, int], dict[str, int]]:
    statements = load_statements("skb.cypher")
    nodes = {
        t.label: session.run(fill_identifiers(statements["label_count"], label=t.label)).single(strict=True)["count"]
        for t in schema.node_types
    }
    edges = {}
    for relation in schema.relation_types:
        for pair in relation.pairs:
            query = fill_identifiers(
                statements["edge_count"], source_label=pair.source, type=relation.type, target_label=pair.target
            )
            key = f"(:{pair.source})-[:{relation.type}]->(:{pair.target})"
            edges[key] = session.run(query).single(strict=True)["count"]
    return nodes, edges


def load_skb(
    driver: Driver, database: str, source: SkbSource, embedder: GraspEmbedder, options: LoadOptions = LoadOptions()
) -> LoadSummary:
    schema = source.schema()
    apply_schema(driver, database)
    with driver.session(database=database) as session:
        other = _other_loaded_skb(session, schema.name)
        if other is not None:
            raise GraspError(
                f"this database already holds the SKB '{other}'; load '{schema.name}' into another "
                "instance (GRASP_INSTANCE=...) or another database"
            )
        fingerprint = source.fingerprint()
        state = read_state(session, schema.name)
        if state is not None and state.complete and state.matches(fingerprint, embedder.model_id) and not options.force:
            stored = read_schema(session, schema.name)
            if stored is not None and stored != schema and describes_same_data(stored, schema):
                # a newer release words the same data differently (type aliases, synonym fields): keep it current
                session.execute_write(write_meta, SCHEMA_KEY_PREFIX + schema.name, schema.to_json())
            nodes, edges = count_in_database(session, schema)
            return LoadSummary(skb=schema.name, already_loaded=True, nodes=nodes, edges=edges)
        previous, previous_schema = state, read_schema(session, schema.name)
        if state is None or not state.matches(fingerprint, embedder.model_id) or options.force:
            refuse_foreign_nodes(session, schema)
            generation = previous.generation + 1 if previous is not None else 1
            state = LoadState(
                skb=schema.name, fingerprint=fingerprint, embedder=embedder.model_id, generation=generation
            )
        summary = LoadSummary(skb=schema.name, already_loaded=False)
        try:
            _run_stages(session, source, schema, embedder, state, options, summary)
        except BaseException:
            if state.nodes_done == 0 and not state.nodes_complete:
                _leave_no_trace(session, schema, previous, previous_schema)
            raise
        summary.nodes, summary.edges = count_in_database(session, schema)
        summary.skipped = source.skipped()
    return summary


def _leave_no_trace(
    session: Session, schema: SkbSchema, previous: LoadState | None, previous_schema: SkbSchema | None
) -> None:
    """A load that failed before its first batch committed wrote no data: put the bookkeeping back as it was, so
    the database does not claim an SKB it does not hold (which refused every later load of another one)."""
    try:
        if previous is None:
            forget_load(session, schema, drop_constraints=True)
        else:
            session.execute_write(write_state, previous)
            if previous_schema is not None:
                session.execute_write(write_meta, SCHEMA_KEY_PREFIX + schema.name, previous_schema.to_json())
    except Exception:  # the load's own error is the one to raise; this cleanup is best effort
        logger.warning("could not restore the load bookkeeping of %s after the failed load", schema.name, exc_info=True)


def _run_stages(
    session: Session,
    source: SkbSource,
    schema: SkbSchema,
    embedder: GraspEmbedder,
    state: LoadState,
    options: LoadOptions,
    summary: LoadSummary,
) -> None:
    def timed(stage: str, started: float) -> None:
        summary.stage_seconds[stage] = summary.stage_seconds.get(stage, 0.0) + time.monotonic() - started

    started = time.monotonic()
    create_constraints(session, schema)
    session.execute_write(write_meta, SCHEMA_KEY_PREFIX + schema.name, schema.to_json())
    session.execute_write(write_state, state)
    graph_counts = GraphWriteCounts()
    if not state.nodes_complete:
        write_nodes(session, source, state, options.batch_size, graph_counts, options.progress)
    # Idempotent, so a resumed load repeats it cheaply: nodes of earlier generations (ids fixed or removed in
    # the files) go with their edges before documents list neighbour names.
    summary.stale_nodes_removed = remove_stale_nodes(session, schema, state.generation)
    timed("nodes", started)
    started = time.monotonic()
    if not state.edges_complete:
        write_edges(session, source, state, options.batch_size, graph_counts, options.progress)
    summary.stale_edges_removed = remove_stale_edges(session, schema, state.generation)
    summary.edges_missing_endpoint = graph_counts.edges_missing_endpoint
    timed("edges", started)

    started = time.monotonic()
    embedding_counts = EmbeddingCounts()
    budget = options.budget or DocumentBudget.for_model(embedder.max_tokens)
    embedders = StageEmbedders.for_budget(embedder, budget)
    for node_type in schema.node_types:
        if node_type.label not in state.documents_complete:
            embed_label(
                session,
                schema,
                node_type,
                embedders,
                state,
                embedding_counts,
                budget,
                options.page_size,
                options.progress,
            )
            session.execute_write(write_state, state)
    summary.embedded_texts = embedding_counts.texts
    summary.packed_texts = embedding_counts.packed
    summary.embedding_seconds = embedding_counts.seconds
    timed("documents+embeddings", started)

    started = time.monotonic()
    names = create_vector_indexes(session, schema, embedder.dimension)
    wait_until_online(session, names, progress=options.progress)
    timed("vector indexes", started)
    state.complete = True
    session.execute_write(write_state, state)
