"""A stored Path-Bank to a pack and back (the format: bank_pack.py).

Import writes through what a build runs (BankStore.claim: constraints, the vector index, the identity node;
write_query per query; refresh_support), so `grasp adapath ask`, the pathbank planner and a later resumed
build cannot tell an imported bank from a built one. The identity node gets the loaded SKB's fingerprint: a
pack is only accepted for the same data (bank_pack.identity_mismatch), and a build resuming on this load
must find its own identity.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import Driver

from grasp_agent.adapath.bank_build import BankConfig
from grasp_agent.adapath.bank_pack import (
    BANK_PROPERTIES,
    META_PATH_PROPERTIES,
    PACKAGED_BANKS_DIR,
    QUERY_PROPERTIES,
    USE_PROPERTIES,
    BankPack,
    BankPackError,
    PackedMetaPath,
    PackedQuery,
    PackedUse,
    PackManifest,
    content_digest,
    identity_mismatch,
    packaged_names,
    packaged_pack,
    unknown_properties,
)
from grasp_agent.adapath.bank_store import BankIdentity, BankStore
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.errors import GraspError
from grasp_agent.skb.context import read_skb_context
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.text_branch.from_database import completed_load

BANK_INDEX = "adapath_query_embedding"  # bank_vector_index's name; adapath.bank.metaPaths reads it
INDEX_WAIT_S = 300


@dataclass(frozen=True)
class LoadedSkb:
    """The loaded SKB as a bank sees it: its schema and the identity a bank built here now would get."""

    schema: SkbSchema
    identity: BankIdentity


def read_loaded_skb(driver: Driver, database: str, embedder_id: str | None = None) -> LoadedSkb:
    """`embedder_id`: the configured embedder's model id; None takes the load's own (right after a load with
    the configured embedder they are the same, and reading it spares opening the model)."""
    schema = read_skb_context(driver, database).schema
    state = completed_load(driver, database, schema.name)
    return LoadedSkb(schema, BankIdentity(schema.name, state.fingerprint, embedder_id or state.embedder))


def read_content_digest(cypher: AdaPathCypher, schema: SkbSchema) -> str:
    """content_digest of the loaded SKB: ids per label (by the id index), counts per relation type (count store)."""
    node_ids = {
        node_type.label: [str(row["id"]) for row in cypher.run("skb_node_ids", {"label": node_type.label})]
        for node_type in schema.node_types
    }
    counts = {
        relation.type: int(cypher.run("skb_relation_count", {"type": relation.type})[0]["relationships"])
        for relation in schema.relation_types
    }
    return content_digest(node_ids, counts)


# ---- export ----


def export_bank(driver: Driver, database: str, loaded: LoadedSkb, source: str = "") -> BankPack:
    """The database's whole bank. Its content digest is recorded only when the bank was built on the loaded
    data (same fingerprint); a pack of an older load can then only go back onto that very load."""
    cypher = AdaPathCypher(driver, database)
    banks = cypher.run("export_bank")
    if len(banks) != 1:
        raise BankPackError(f"the database holds {len(banks)} Path-Banks; allowed: exactly 1 (build one first)")
    bank = banks[0]
    unknown_properties("identity node", bank["keys"], BANK_PROPERTIES)
    meta_paths = [_packed_meta_path(row) for row in cypher.run("export_meta_paths")]
    index = {meta.signature: position for position, meta in enumerate(meta_paths)}
    rows = cypher.run("export_queries")
    queries = [_packed_query(row, index) for row in rows]
    vectors = _vectors(rows)
    same_load = (bank["skb"], bank["fingerprint"]) == (loaded.identity.skb, loaded.identity.fingerprint)
    manifest = PackManifest(
        skb=str(bank["skb"]),
        fingerprint=str(bank["fingerprint"]),
        embedder=str(bank["embedder"]),
        content=read_content_digest(cypher, loaded.schema) if same_load else None,
        config=json.loads(bank["config"] or "{}"),
        dimension=int(vectors.shape[1]),
        queries=len(queries),
        meta_paths=len(meta_paths),
        uses=sum(len(query.uses) for query in queries),
        source=source,
    )
    return BankPack(manifest, tuple(meta_paths), tuple(queries), vectors)


def _packed_meta_path(row: dict[str, Any]) -> PackedMetaPath:
    unknown_properties("meta-paths", row["keys"], META_PATH_PROPERTIES)
    return PackedMetaPath(
        str(row["signature"]),
        int(row["hops"]),
        str(row["startLabel"]),
        str(row["answerLabel"]),
        tuple(row["labels"]),
        tuple(row["relations"]),
        tuple(bool(outgoing) for outgoing in row["outgoing"]),
    )


def _packed_query(row: dict[str, Any], meta_path_index: dict[str, int]) -> PackedQuery:
    unknown_properties("queries", row["keys"], QUERY_PROPERTIES)
    uses = []
    for use in row["uses"]:
        unknown_properties("ADAPATH_USES links", use["keys"], USE_PROPERTIES)
        uses.append(PackedUse(meta_path_index[use["signature"]], float(use["cost"]), int(use["paths"])))
    return PackedQuery(
        str(row["id"]),
        str(row["text"]),
        tuple(str(node) for node in row["topicIds"] or ()),
        tuple(str(node) for node in row["answerIds"] or ()),
        int(row["corridorNodes"] or 0),
        int(row["paths"] or 0),
        tuple(uses),
        None if row["written"] is None else int(row["written"]),
    )


def _vectors(rows: list[dict[str, Any]]) -> np.ndarray:
    """The queries' embeddings as float32: what the vector property holds, so nothing is rounded."""
    missing = [str(row["id"]) for row in rows if not row["embedding"]]
    sizes = {len(row["embedding"]) for row in rows if row["embedding"]}
    if missing or len(sizes) > 1:
        raise BankPackError(
            f"every bank query needs an embedding of one dimension; without: {missing[:5]}, sizes: {sorted(sizes)}"
        )
    if not rows:
        raise BankPackError("the Path-Bank holds no query; build it first (`grasp adapath build-bank`)")
    return np.asarray([row["embedding"] for row in rows], dtype=np.float32)


# ---- import ----


@dataclass(frozen=True)
class ImportOutcome:
    imported: bool
    reason: str  # what was done, or why nothing was
    queries: int = 0
    meta_paths: int = 0
    uses: int = 0
    seconds: float = 0.0


def import_bank(
    driver: Driver, database: str, pack: BankPack, loaded: LoadedSkb, *, force: bool = False
) -> ImportOutcome:
    """Writes `pack` as the database's bank when it fits the loaded SKB (else BankPackError) and the database
    holds no bank (else a skipped outcome, unless `force` replaces it)."""
    started = time.perf_counter()
    cypher = AdaPathCypher(driver, database)
    store = BankStore(driver, database)
    held = _held_bank(store, cypher)
    if held and not force:  # checked first: the demo asks on every start, and this answer needs no digest
        return ImportOutcome(False, f"{held}; `grasp adapath import-bank --force` replaces it")
    manifest = pack.manifest
    content = (
        None if manifest.fingerprint == loaded.identity.fingerprint else read_content_digest(cypher, loaded.schema)
    )
    mismatch = identity_mismatch(manifest, loaded.identity, content)
    if mismatch:
        raise BankPackError(f"{mismatch}; build the bank here instead (`grasp adapath build-bank`)")
    store.claim(loaded.identity, _config(manifest), manifest.dimension, rebuild=force)
    for position in range(len(pack.queries)):  # in the pack's order: the order the bank was built in
        cypher.run("write_query", **pack.write_parameters(position))
    meta_paths, uses = store.refresh_support()
    cypher.run("await_bank_index", index=BANK_INDEX, seconds=INDEX_WAIT_S)
    return ImportOutcome(True, "imported", len(pack.queries), meta_paths, uses, seconds=time.perf_counter() - started)


def _held_bank(store: BankStore, cypher: AdaPathCypher) -> str | None:
    """What bank the database already holds, said for people; None when it holds none."""
    identity = store.identity()
    queries = int(cypher.run("count_bank_queries")[0]["queries"])
    if identity is None and not queries:
        return None
    if identity is None:
        return f"the database holds {queries:,} Path-Bank queries without a bank (an interrupted build or import)"
    return f"the database already holds a Path-Bank of {identity.skb!r} with {queries:,} queries"


def _config(manifest: PackManifest) -> BankConfig:
    try:
        return BankConfig(**manifest.config)
    except (TypeError, GraspError) as error:
        raise BankPackError(f"the pack's bank config {manifest.config} is not a BankConfig here: {error}") from error


def import_packaged_bank(
    driver: Driver,
    database: str,
    embedder_id: str | None = None,
    *,
    force: bool = False,
    directory: Path = PACKAGED_BANKS_DIR,
) -> ImportOutcome:
    """import_bank of the pack shipped for the loaded SKB and embedder; BankPackError when none is shipped."""
    loaded = read_loaded_skb(driver, database, embedder_id)
    skb, embedder = loaded.identity.skb, loaded.identity.embedder
    path = packaged_pack(skb, embedder, directory)
    if path is None:
        raise BankPackError(
            f"no packaged Path-Bank for SKB {skb!r} and embedder {embedder!r} (packaged: "
            f"{list(packaged_names(directory)) or 'none'}); build one with `grasp adapath build-bank`"
        )
    return import_bank(driver, database, BankPack.load(path), loaded, force=force)
