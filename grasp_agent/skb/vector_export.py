"""Vector packs from a loaded SKB: the name and document embeddings the load stored, keyed by their texts.

A later load of the same SKB with the same models (on another machine, or the packaged HPO pack in a fresh
clone) then looks those vectors up instead of embedding again. Only vectors whose node's `doc_hash` proves
they were made by exactly these models (see StageEmbedders.document_hash) are exported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from neo4j import Driver
from tqdm import tqdm

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.vector_pack import PACK_SUFFIX, VectorPack
from grasp_agent.errors import GraspError
from grasp_agent.skb.checkpoint import read_state
from grasp_agent.skb.documents import DocumentBudget
from grasp_agent.skb.embedding_stage import StageEmbedders
from grasp_agent.skb.schema import SkbSchema

PAGE_SIZE = 2000


@dataclass
class PackEntries:
    """Texts and their vectors under one model id (one pack file)."""

    texts: list[str] = field(default_factory=list)
    vectors: list[Sequence[float]] = field(default_factory=list)

    def add(self, texts: Sequence[str], vectors: Sequence[Sequence[float]] | np.ndarray) -> None:
        self.texts.extend(texts)
        self.vectors.extend(list(vectors))


@dataclass
class StoredVectors:
    fingerprint: str  # of the load the vectors come from
    by_model: dict[str, PackEntries] = field(default_factory=dict)  # model id -> entries
    other_models: int = 0  # nodes whose doc_hash names other models: left out

    def entries(self, model_id: str) -> PackEntries:
        return self.by_model.setdefault(model_id, PackEntries())


def pack_file_name(skb_name: str, model_id: str) -> str:
    """`hpo-local_all-MiniLM-L6-v2_max256.npz`: readable; a folder can hold one SKB's packs for several models."""
    safe = "".join(char if char.isalnum() or char in "-_" else "_" for char in model_id)
    return f"{skb_name}-{safe}{PACK_SUFFIX}"


def read_stored_vectors(
    driver: Driver, database: str, schema: SkbSchema, embedder: GraspEmbedder, progress: bool = False
) -> StoredVectors:
    """The name and document vectors the load stored, under the loader's two model ids; refuses a load made
    with another embedder, and leaves out any node whose `doc_hash` does not prove these models made it."""
    with driver.session(database=database) as session:
        state = read_state(session, schema.name)
    if state is None or not state.complete:
        raise GraspError(f"SKB {schema.name!r} is not completely loaded; run `grasp load` first")
    if state.embedder != embedder.model_id:
        raise GraspError(
            f"SKB {schema.name!r} was loaded with {state.embedder!r} but the configured embedder is "
            f"{embedder.model_id!r}; configure that embedder (GRASP_EMBEDDER...) to export its vectors"
        )
    embedders = StageEmbedders.for_budget(embedder, DocumentBudget.for_model(embedder.max_tokens))
    stored = StoredVectors(state.fingerprint)
    names, docs = stored.entries(embedders.names.model_id), stored.entries(embedders.docs.model_id)
    query_text = load_statements("skb.cypher")["stored_vectors"]
    with driver.session(database=database) as session:
        for node_type in schema.node_types:
            query = fill_identifiers(query_text, label=node_type.label)
            after = None
            with tqdm(desc=f"read {node_type.label}", unit="node", disable=not progress) as bar:
                while page := session.run(query, after=after, limit=PAGE_SIZE).data():
                    for row in page:
                        if row["doc_hash"] != embedders.document_hash(row["doc"] or ""):
                            stored.other_models += 1
                            continue
                        names.add([str(row["name"] or "")], [row["name_vector"]])
                        docs.add([row["doc"]], [row["doc_vector"]])
                    after = page[-1]["id"]
                    bar.update(len(page))
    if not docs.texts:
        raise GraspError(
            f"no node of SKB {schema.name!r} holds vectors made by {embedder.model_id!r}; nothing to export"
        )
    return stored


def write_packs(stored: StoredVectors, out_dir: Path, skb_name: str, source: str) -> list[tuple[Path, int]]:
    """One pack per model id; returns each file with its number of distinct texts."""
    written = []
    for model_id, entries in stored.by_model.items():
        pack = VectorPack.build(model_id, entries.texts, np.asarray(entries.vectors, dtype=np.float32), source)
        path = out_dir / pack_file_name(skb_name, model_id)
        pack.save(path)
        written.append((path, len(pack)))
    return written
