"""Dense scorer per field: one matrix of unit field embeddings per field, searched by exact cosine top-k.

    <root>/<skb_name>/<fingerprint>/<model folder>/manifest.json        written last: marks a complete index;
                                                                       each file's size and sha256
                                                  nodes.json           ids and node types (row order)
                                                  fields/<field>.rows.npy     int64 (n_f,): corpus row per vector
                                                  fields/<field>.vectors.npy  float32 (n_f, d): unit rows
                                                  verified.json        file states at the last full check

The root is not the BM25 root (`default_dense_root`), so `open_lexical_index`, which replaces its whole
fingerprint folder on a rebuild, never deletes vectors that took an hour to embed; the layout below the root
is the same (`index_directory`). The model folder is named after the embedder's `model_id`, so indexes of
several embedders of one SKB content coexist. As in BM25, a field indexes only nodes with text in it, the
root is per instance, files are private, and a load checks every file against the manifest first (shapes
always, sha256 when a file changed since the last check: index_files.py); a damaged index is built again.

Loading memory-maps the matrices; a query is one (n_f, d) @ (d,) product and an `argpartition`, exact, with
an optional node-type mask. Scores are `cosine - floor` by default (`relative=True`): the floor is the
cosine of the best eligible node left out of the top k (0 when every eligible node is returned, and never
below 0). A node outside the top k then scores <= 0, which is what `multifield.combine_fields` assumes of a
node absent from a ranking, and `max_normalize` turns the list into min-max over the top k + 1.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictStr
from tqdm import tqdm

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.text_branch.bm25_index import DEFAULT_TOP_K, StoredNodes, index_directory, read_nodes, read_rows
from grasp_agent.text_branch.fields import (
    DOC_FIELD,
    NAME_FIELD,
    FieldCorpus,
    NodeId,
    NodePositions,
    ScoredNodes,
    TextBranchError,
)
from grasp_agent.text_branch.identifier_fields import identifier_field
from grasp_agent.text_branch.index_files import (
    MANIFEST,
    FileRecord,
    IndexDamaged,
    add_file_records,
    check_files,
    damage_guard,
    finish_save,
    npy_header,
)
from grasp_agent.text_branch.index_store import (
    adopt_legacy,
    clean_stale_staging,
    has_manifest,
    install_build,
    read_manifest,
    remove_path,
)

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
EMBED_CHUNK = 256  # texts per embedder call: the unit of progress
QUERY_CHUNK = 256  # queries per matrix product in batch_search: bounds the (queries, n_f) score block
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_dense_root(settings: Settings) -> Path:
    """This instance's own dense root (GRASP_DENSE_INDEX_DIR, else in the instance folder)."""
    return settings.dense_index_dir or settings.instance_dir / "dense_index"


def legacy_dense_root(settings: Settings) -> Path | None:
    """The root all instances shared before indexes were kept per instance; None under GRASP_DENSE_INDEX_DIR."""
    return None if settings.dense_index_dir else settings.grasp_dir / "dense_index"


def model_folder(model_id: str) -> str:
    """A folder name for an embedder: its model_id made safe, plus a hash so that distinct ids never share."""
    digest = hashlib.sha256(model_id.encode()).hexdigest()[:8]
    return f"{_UNSAFE.sub('_', model_id).strip('._-')[:80]}-{digest}"


def dense_index_directory(root: Path, skb_name: str, fingerprint: str, model_id: str) -> Path:
    return index_directory(root, skb_name, fingerprint) / model_folder(model_id)


class DenseManifest(BaseModel):
    """manifest.json of a saved dense index; `files` is None in indexes saved before it was recorded."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    format: int
    model_id: StrictStr
    dimension: int = Field(ge=1)
    fields: dict[StrictStr, int]
    nodes: int = Field(ge=0)
    selection: list[StrictStr] | None
    files: dict[str, FileRecord] | None = None


SCAN_ROWS = 8192  # rows per block when scanning a matrix for non-finite values (bounds the temporary)


def _check_finite(name: str, vectors: np.ndarray) -> None:
    for start in range(0, len(vectors), SCAN_ROWS):
        if not np.isfinite(vectors[start : start + SCAN_ROWS]).all():
            raise ValueError(f"{name}.vectors.npy holds non-finite values")


@dataclass(frozen=True)
class _DenseField:
    rows: np.ndarray  # int64 (n_f,): corpus row of each vector
    vectors: np.ndarray  # float32 (n_f, d): unit field embeddings (a read-only memory map once loaded)


class DenseFieldIndex:
    """Field embeddings of a `FieldCorpus` (optionally of its documents too); build, save, load, search."""

    def __init__(
        self,
        ids: Sequence[NodeId],
        labels: Sequence[str],
        node_types: Sequence[str],
        fields: Mapping[str, _DenseField],
        model_id: str,
        dimension: int,
        selection: Sequence[str] | None = None,
    ) -> None:
        self.ids = tuple(ids)
        self.selection = None if selection is None else tuple(selection)  # the fields asked for; None: all
        self.node_types = tuple(node_types)
        self.model_id = model_id
        self.dimension = dimension
        self._label_codes = np.asarray([self.node_types.index(label) for label in labels], dtype=np.int32)
        self._fields = dict(fields)
        self._positions = NodePositions(self.ids)

    @property
    def fields(self) -> tuple[str, ...]:
        """The indexed mFAR fields, in corpus order (a document index is searched with `search_document`)."""
        return tuple(name for name in self._fields if name != DOC_FIELD)

    def size(self, field: str) -> int:
        """Vectors in `field`: the nodes with text in it."""
        return len(self._field(field).rows)

    # ---- building and persistence ---------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        corpus: FieldCorpus,
        embedder: GraspEmbedder,
        *,
        fields: Sequence[str] | None = None,
        include_document: bool = False,
        progress: bool = False,
    ) -> DenseFieldIndex:
        """Embeds every non-empty text of `fields` (default: all), each distinct text once; a field of
        identifiers (`identifier_field`: codes, numbers, URLs) is left to BM25. `selection` records the fields
        asked for, so the index loads again for the same request."""
        names = list(corpus.fields if fields is None else fields)
        unknown = [name for name in names if name not in corpus.fields]
        if unknown:
            raise TextBranchError(f"cannot embed fields {unknown}: not in the corpus; known: {list(corpus.fields)}")
        lexical_only = [name for name in names if identifier_field(corpus.fields[name])]
        if lexical_only:
            logger.info("fields of identifiers, searched by BM25 only: %s", ", ".join(lexical_only))
        columns = {name: corpus.fields[name] for name in names if name not in lexical_only}
        if include_document:
            columns[DOC_FIELD] = corpus.documents
        built = {name: _embed_column(embedder, name, texts, progress) for name, texts in columns.items()}
        return cls(
            corpus.ids,
            corpus.labels,
            corpus.node_types,
            built,
            embedder.model_id,
            embedder.dimension,
            None if fields is None else names,
        )

    def save(self, directory: Path) -> None:
        """Writes the index into `directory` (created); the manifest, with every file's sha256, goes last."""
        (directory / "fields").mkdir(parents=True, exist_ok=True)
        labels = [self.node_types[code] for code in self._label_codes]
        nodes = StoredNodes(ids=list(self.ids), labels=labels, node_types=list(self.node_types))
        (directory / "nodes.json").write_text(nodes.model_dump_json())
        for name, dense in self._fields.items():
            np.save(directory / "fields" / f"{name}.rows.npy", np.asarray(dense.rows, dtype=np.int64))
            np.save(directory / "fields" / f"{name}.vectors.npy", np.asarray(dense.vectors, dtype=np.float32))
        manifest = {
            "format": FORMAT_VERSION,
            "model_id": self.model_id,
            "dimension": self.dimension,
            "fields": {name: len(dense.rows) for name, dense in self._fields.items()},
            "nodes": len(self.ids),
            "selection": None if self.selection is None else list(self.selection),
        }
        finish_save(directory, manifest)

    @classmethod
    def load(cls, directory: Path) -> DenseFieldIndex:
        """Reads ids and row maps after checking every file against the manifest; the vector matrices are
        memory-mapped read-only, not read (unless a changed file has to be hashed). A damaged index is
        `IndexDamaged` (one line), an absent one a `TextBranchError`."""
        raw = read_dense_manifest(directory)
        if raw is None:
            raise TextBranchError(f"no complete dense index in {directory}: {MANIFEST} is missing")
        with damage_guard("dense index", directory):
            manifest = DenseManifest.model_validate(raw)
            files = check_files(directory, manifest.files)
            nodes = read_nodes(directory, manifest.nodes)
            fields = {}
            for name, count in manifest.fields.items():
                rows = read_rows(directory / "fields" / f"{name}.rows.npy", count, manifest.nodes)
                path = directory / "fields" / f"{name}.vectors.npy"
                shape, dtype = npy_header(path)
                if shape != (count, manifest.dimension) or dtype != np.dtype(np.float32):
                    raise ValueError(
                        f"{path.name} holds {dtype} {shape}; float32 ({count}, {manifest.dimension}) was saved"
                    )
                vectors = (
                    np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))
                    if count
                    else np.zeros((0, manifest.dimension), dtype=np.float32)
                )  # an empty file cannot be mapped
                if files.full and manifest.files is None:  # saved without hashes: NaN would give wrong answers
                    _check_finite(name, vectors)
                fields[name] = _DenseField(rows, vectors)
            index = cls(
                nodes.ids,
                nodes.labels,
                nodes.node_types,
                fields,
                manifest.model_id,
                manifest.dimension,
                manifest.selection,
            )
        if files.full and manifest.files is None:
            add_file_records(directory, raw)
        files.commit()
        return index

    # ---- search ---------------------------------------------------------------------------------------
    def search(
        self,
        query_vector: np.ndarray,
        k: int = DEFAULT_TOP_K,
        *,
        node_type: str | None = None,
        fields: Sequence[str] | None = None,
        relative: bool = True,
    ) -> dict[str, ScoredNodes]:
        """Top `k` nodes per field (all mFAR fields unless `fields`) by cosine to the unit `query_vector`."""
        vector = self._queries(query_vector)
        if vector.ndim != 1:
            raise TextBranchError(
                f"search takes one query vector of shape ({self.dimension},); got {vector.shape}; "
                "use batch_search for several"
            )
        return self.batch_search(vector[None, :], k, node_types=[node_type], fields=fields, relative=relative)[0]

    def search_field(
        self,
        field: str,
        query_vector: np.ndarray,
        k: int = DEFAULT_TOP_K,
        *,
        node_type: str | None = None,
        relative: bool = True,
    ) -> ScoredNodes:
        return self.search(query_vector, k, node_type=node_type, fields=[field], relative=relative)[field]

    def search_document(
        self, query_vector: np.ndarray, k: int = DEFAULT_TOP_K, *, node_type: str | None = None, relative: bool = True
    ) -> ScoredNodes:
        """The single-field baseline, when built with `include_document`."""
        return self.search_field(DOC_FIELD, query_vector, k, node_type=node_type, relative=relative)

    def batch_search(
        self,
        query_vectors: np.ndarray,
        k: int = DEFAULT_TOP_K,
        *,
        node_types: Sequence[str | None] | None = None,
        fields: Sequence[str] | None = None,
        relative: bool = True,
    ) -> list[dict[str, ScoredNodes]]:
        """`search` for each row of `query_vectors` (m, d), with one node type (or None) per query."""
        if k < 1:
            raise TextBranchError(f"k must be at least 1; got {k}")
        queries = self._queries(query_vectors)
        if queries.ndim != 2:
            raise TextBranchError(
                f"batch_search takes query vectors of shape (m, {self.dimension}); got {queries.shape}"
            )
        types = list(node_types) if node_types is not None else [None] * len(queries)
        if len(types) != len(queries):
            raise TextBranchError(
                f"node_types must give one type (or None) per query: {len(queries)} queries, {len(types)} types"
            )
        type_codes = np.asarray([self._type_code(node_type) for node_type in types], dtype=np.int32)
        results: list[dict[str, ScoredNodes]] = [{} for _ in queries]
        for name in fields or self.fields:
            dense = self._field(name)
            labels = self._label_codes[dense.rows]  # (n_f,)
            for start in range(0, len(queries), QUERY_CHUNK):
                block = queries[start : start + QUERY_CHUNK]
                cosines = block @ dense.vectors.T if len(dense.rows) else np.zeros((len(block), 0), np.float32)
                for offset, row_scores in enumerate(cosines):  # (n_f,)
                    code = type_codes[start + offset]
                    eligible = None if code < 0 else labels == code
                    results[start + offset][name] = self._top(name, dense.rows, row_scores, eligible, k, relative)
        return results

    def _top(
        self, name: str, rows: np.ndarray, cosines: np.ndarray, eligible: np.ndarray | None, k: int, relative: bool
    ) -> ScoredNodes:
        candidates = np.flatnonzero(eligible) if eligible is not None else np.arange(len(rows))
        floor = 0.0
        if len(candidates) > k:
            part = np.argpartition(-cosines[candidates], k)  # [:k] the top k, [k] the best one left out
            floor = max(float(cosines[candidates[part[k]]]), 0.0)
            candidates = candidates[part[:k]]
        scores = cosines[candidates] - floor if relative else cosines[candidates]
        if relative:
            kept = scores > 0  # no better than a node left out, or cosine <= 0: no evidence
            candidates, scores = candidates[kept], scores[kept]
        order = np.lexsort((rows[candidates], -scores))  # best first, ties in corpus order
        return ScoredNodes(
            name,
            tuple(self.ids[row] for row in rows[candidates][order]),
            tuple(float(score) for score in scores[order]),
        )

    def best_field_cosine(
        self, query_vector: np.ndarray, ids: Sequence[NodeId], fields: Sequence[str] | None = None
    ) -> list[float | None]:
        """Per node, the best cosine of the unit `query_vector` with its vectors in `fields` (default: every
        indexed field but the name and the document: the node's own text, such as a definition); None for a
        node without text in any of them."""
        vector = self._queries(query_vector)
        if vector.ndim != 1:
            raise TextBranchError(f"best_field_cosine takes one query vector of shape ({self.dimension},)")
        names = list(fields) if fields is not None else [name for name in self.fields if name != NAME_FIELD]
        best = np.full(len(ids), -np.inf)
        for name in names:
            dense = self._field(name)
            at = self._positions.in_field(name, dense.rows, ids)
            found = at >= 0
            cosines = np.full(len(ids), -np.inf)
            cosines[found] = dense.vectors[at[found]] @ vector
            best = np.maximum(best, cosines)
        return [float(cosine) if np.isfinite(cosine) else None for cosine in best]

    def own_text_matches(
        self, query_vectors: np.ndarray, k: int, node_types: Sequence[str | None] | None = None
    ) -> list[list[tuple[NodeId, str, float]]]:
        """Per query row of (m, d) (of its type in `node_types`, when given), the `k` nodes whose own text (every
        indexed field but the name and the document, as `best_field_cosine` reads) is closest: (id, type, best
        cosine over those fields), best first, ties by id."""
        queries = self._queries(query_vectors)
        names = [name for name in self.fields if name != NAME_FIELD]
        if not names:
            return [[] for _ in range(len(queries))]
        row_of = self._positions.row_of
        found: list[list[tuple[NodeId, str, float]]] = []
        for per_field in self.batch_search(queries, k, node_types=node_types, fields=names, relative=False):
            best: dict[NodeId, float] = {}
            for ranking in per_field.values():
                for node_id, score in zip(ranking.ids, ranking.scores, strict=True):
                    best[node_id] = max(score, best.get(node_id, -1.0))
            top = sorted(best.items(), key=lambda item: (-item[1], str(item[0])))[:k]
            found.append(
                [(node_id, self.node_types[self._label_codes[row_of[node_id]]], score) for node_id, score in top]
            )
        return found

    def _queries(self, vectors: np.ndarray) -> np.ndarray:
        array = np.asarray(vectors, dtype=np.float32)
        if array.shape[-1:] != (self.dimension,) or array.ndim not in (1, 2):
            raise TextBranchError(
                f"query vectors must have shape ({self.dimension},) or (m, {self.dimension}) "
                f"for index model {self.model_id!r}; got {array.shape}"
            )
        return array

    def _type_code(self, node_type: str | None) -> int:
        if node_type is None:
            return -1
        if node_type not in self.node_types:
            raise TextBranchError(f"unknown node type '{node_type}'; known: {list(self.node_types)}")
        return self.node_types.index(node_type)

    def _field(self, field: str) -> _DenseField:
        if field not in self._fields:
            raise TextBranchError(f"field '{field}' has no dense index; indexed: {list(self._fields)}")
        return self._fields[field]


def _embed_column(embedder: GraspEmbedder, name: str, texts: Sequence[str], progress: bool) -> _DenseField:
    """Vectors of the non-empty texts of one field; each distinct text is embedded once."""
    rows = np.asarray([row for row, text in enumerate(texts) if text.strip()], dtype=np.int64)
    distinct = list(dict.fromkeys(texts[row] for row in rows))
    vectors = np.zeros((len(distinct), embedder.dimension), dtype=np.float32)
    with tqdm(total=len(distinct), desc=f"dense {name}", unit="text", disable=not progress) as bar:
        for start in range(0, len(distinct), EMBED_CHUNK):
            chunk = distinct[start : start + EMBED_CHUNK]
            embedded = embedder.embed_texts(chunk)
            if embedded.shape != (len(chunk), embedder.dimension):
                raise TextBranchError(
                    f"embedder {embedder.model_id!r} returned shape {embedded.shape} for "
                    f"{len(chunk)} texts; expected ({len(chunk)}, {embedder.dimension})"
                )
            if not np.isfinite(embedded).all():  # a NaN row would rank nonsense silently
                raise TextBranchError(f"embedder {embedder.model_id!r} returned non-finite vectors for field {name!r}")
            vectors[start : start + len(chunk)] = embedded
            bar.update(len(chunk))
    position = {text: index for index, text in enumerate(distinct)}
    return _DenseField(rows, vectors[[position[texts[row]] for row in rows]] if len(rows) else vectors)


def read_dense_manifest(directory: Path) -> dict[str, Any] | None:
    """The raw manifest: None when absent or of an older format, `IndexDamaged` when unreadable."""
    return read_manifest(directory, MANIFEST, FORMAT_VERSION, "dense index")


def _is_complete(directory: Path) -> bool:
    return has_manifest(directory, MANIFEST, FORMAT_VERSION)


def open_dense_index(
    root: Path,
    skb_name: str,
    fingerprint: str,
    corpus: Callable[[], FieldCorpus],
    embedder: GraspEmbedder,
    *,
    fields: Sequence[str] | None = None,
    include_document: bool = False,
    progress: bool = True,
    legacy_root: Path | None = None,
) -> DenseFieldIndex:
    """The dense index of this SKB content and embedder: loaded when built before with these fields, else built.

    `corpus` is called only to build. As `open_lexical_index`: the build goes to a staging sibling that is
    renamed into place, then folders of other fingerprints of the same SKB in this `root` are removed; a
    damaged index is built again with one warning line; `legacy_root` is the old shared root.
    """
    directory = dense_index_directory(root, skb_name, fingerprint, embedder.model_id)
    _clean_stale_staging(directory.parent.parent)
    source = adopt_legacy(root, legacy_root, directory.relative_to(root), "dense index", _is_complete)
    try:
        manifest = read_dense_manifest(source)
        if manifest is not None:
            with damage_guard("dense index", source):
                stored = DenseManifest.model_validate(manifest)
            if _same_fields(stored, fields, include_document):
                logger.info("loading dense index %s", source)
                return DenseFieldIndex.load(source)
    except IndexDamaged as error:
        logger.warning("%s; building it again", error)
    logger.info("building dense index %s", directory)
    index = DenseFieldIndex.build(
        corpus(), embedder, fields=fields, include_document=include_document, progress=progress
    )
    if install_build(directory, index.save, _is_complete):
        _remove_other_fingerprints(directory.parent)
    return index


def _same_fields(manifest: DenseManifest, fields: Sequence[str] | None, include_document: bool) -> bool:
    wanted = None if fields is None else list(fields)
    return manifest.selection == wanted and (DOC_FIELD in manifest.fields) == include_document


def _clean_stale_staging(skb_folder: Path) -> None:
    """Dead builds' staging folders in every fingerprint folder of the SKB; a fingerprint folder that held
    nothing else goes too."""
    try:
        contents = [folder for folder in skb_folder.iterdir() if folder.is_dir() and not folder.name.startswith(".")]
    except OSError:
        return
    for content in contents:
        clean_stale_staging(content)
        with suppress(OSError):  # only when empty
            content.rmdir()


def _remove_other_fingerprints(keep: Path) -> None:
    for sibling in keep.parent.iterdir():
        if sibling == keep or sibling.name.startswith(".") or not sibling.is_dir():
            continue
        if any(os.path.lexists(model / MANIFEST) for model in sibling.iterdir() if model.is_dir()):  # damaged too
            logger.info("removing dense index of an older SKB content: %s", sibling)
            remove_path(sibling)
