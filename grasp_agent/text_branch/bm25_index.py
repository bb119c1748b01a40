"""BM25 per field (bm25s), plus one over the whole node document, persisted per SKB content fingerprint.

    <root>/<skb_name>/<fingerprint>/manifest.json     written last: its presence marks a complete index;
                                                      records each file's size and sha256
                                    nodes.json        ids and node types, row order of every field
                                    fields/<field>/   bm25s arrays + vocabulary, and rows.npy
                                    verified.json     file states at the last full check (index_files.py)

The root is per instance (`<instance folder>/text_index`): another instance's build of other content under the
same SKB name never removes this one. Files are 0600 in 0700 folders. A load checks every file against the
manifest first (index_files.py); a damaged index is built again by `open_lexical_index`.

Each field indexes only the nodes that have text in it, as a Lucene field does (its document count and
average length count documents with the field), so a Gene's empty definition does not shorten the average
definition. `rows.npy` maps a field's documents back to corpus rows. Loading reads arrays and vocabularies
only; the corpus is never re-tokenized, and only the query is stemmed.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import bm25s  # type: ignore[import-untyped]
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from tqdm import tqdm

from grasp_agent.config import Settings
from grasp_agent.identifiers import is_identifier
from grasp_agent.optional_imports import require
from grasp_agent.text_branch.fields import (
    DOC_FIELD,
    FieldCorpus,
    NodeId,
    NodePositions,
    ScoredNodes,
    TextBranchError,
)
from grasp_agent.text_branch.index_files import (
    MANIFEST,
    FileRecord,
    IndexDamaged,
    add_file_records,
    check_files,
    damage_guard,
    finish_save,
    read_regular,
)
from grasp_agent.text_branch.index_store import (
    adopt_legacy,
    clean_stale_staging,
    has_manifest,
    install_build,
)
from grasp_agent.text_branch.index_store import read_manifest as read_stored_manifest

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
DEFAULT_TOP_K = 100
_FINGERPRINT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class Bm25Config:
    """Lucene's BM25 (k1=1.2, b=0.75, as mFAR's bm25s indexes), English stopwords, Snowball stemming."""

    k1: float = 1.2
    b: float = 0.75
    stopwords: str = "en"
    stemmer: str | None = "english"  # a PyStemmer algorithm name, or None for no stemming


def default_index_root(settings: Settings) -> Path:
    """This instance's own BM25 root (GRASP_TEXT_INDEX_DIR, else in the instance folder)."""
    return settings.text_index_dir or settings.instance_dir / "text_index"


def legacy_index_root(settings: Settings) -> Path | None:
    """The root all instances shared before indexes were kept per instance; None under GRASP_TEXT_INDEX_DIR."""
    return None if settings.text_index_dir else settings.grasp_dir / "text_index"


def index_directory(root: Path, skb_name: str, fingerprint: str) -> Path:
    if not is_identifier(skb_name):
        raise TextBranchError(f"SKB name {skb_name!r} is not an identifier: letters, digits and _, letter first")
    if not _FINGERPRINT.match(fingerprint):
        raise TextBranchError(
            f"fingerprint {fingerprint!r} cannot name a folder: use 1-128 of [A-Za-z0-9._-], "
            "starting with a letter or digit"
        )
    return root / skb_name / fingerprint


class StoredConfig(BaseModel):
    """The manifest's copy of the `Bm25Config` the index was built with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k1: float
    b: float
    stopwords: StrictStr
    stemmer: StrictStr | None

    def config(self) -> Bm25Config:
        return Bm25Config(self.k1, self.b, self.stopwords, self.stemmer)


class LexicalManifest(BaseModel):
    """manifest.json of a saved index; `files` is None in indexes saved before it was recorded."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    format: int
    config: StoredConfig
    fields: list[StrictStr] = Field(min_length=1)
    nodes: int = Field(ge=0)
    files: dict[str, FileRecord] | None = None


class StoredNodes(BaseModel):
    """nodes.json: ids and types in corpus row order."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    ids: list[StrictStr | StrictInt]
    labels: list[StrictStr]
    node_types: list[StrictStr]

    def checked(self, count: int) -> StoredNodes:
        if len(self.ids) != count or len(self.labels) != count:
            raise ValueError(f"nodes.json holds {len(self.ids)} ids and {len(self.labels)} labels; {count} were saved")
        if not set(self.labels) <= set(self.node_types):
            raise ValueError("nodes.json labels a node with a type it does not list")
        return self


def read_nodes(directory: Path, count: int) -> StoredNodes:
    # json.loads then validate: twice as fast as pydantic's own JSON parser on the HPO's 45k ids
    return StoredNodes.model_validate(json.loads(read_regular(directory / "nodes.json"))).checked(count)


def read_rows(path: Path, count: int, nodes: int) -> np.ndarray:
    """int64 (count,): a field's corpus rows, strictly increasing (as built) and within the corpus."""
    rows = np.load(path, allow_pickle=False)
    if rows.dtype != np.int64 or rows.shape != (count,):
        raise ValueError(f"{path.name} holds {rows.dtype} {rows.shape}; int64 ({count},) was saved")
    if count and (rows[0] < 0 or rows[-1] >= nodes or np.any(np.diff(rows) <= 0)):
        raise ValueError(f"{path.name} is not the increasing row list of a field")
    return rows


class QueryTokenizer:
    """Tokenizes queries exactly as `bm25s.tokenize` tokenized the corpus under the same config."""

    def __init__(self, config: Bm25Config) -> None:
        self._config = config
        self._stemmer = _make_stemmer(config.stemmer)

    def corpus_tokens(self, texts: Sequence[str], progress: bool) -> Any:
        return bm25s.tokenize(
            list(texts),
            stopwords=self._config.stopwords,
            stemmer=self._stemmer,
            return_ids=True,
            show_progress=progress,
        )

    def __call__(self, query: str) -> list[str]:
        tokens = bm25s.tokenize(
            [query], stopwords=self._config.stopwords, stemmer=self._stemmer, return_ids=False, show_progress=False
        )
        return [str(token) for token in tokens[0]]


def _make_stemmer(name: str | None) -> Any:
    if name is None:
        return None
    stemming = require(
        "Stemmer",
        need="stemming needs the PyStemmer package",
        hint="pip install PyStemmer (or Bm25Config(stemmer=None))",
        error_type=TextBranchError,
    )
    try:
        return stemming.Stemmer(name)
    except KeyError as error:
        raise TextBranchError(f"unknown stemmer {name!r}; known: {stemming.algorithms()}") from error


@dataclass(frozen=True)
class _FieldIndex:
    rows: np.ndarray  # int64 (documents,): corpus row of each indexed document
    bm25: Any  # bm25s.BM25, or None when no node has text in the field

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """float32 (documents,): BM25 of the query per indexed document; zero where no term matches."""
        token_ids = [self.bm25.vocab_dict[t] for t in tokens if t in self.bm25.vocab_dict] if self.bm25 else []
        if not token_ids:
            return np.zeros(len(self.rows), dtype=np.float32)
        return np.asarray(self.bm25.get_scores_from_ids(token_ids), dtype=np.float32)

    def holders(self, token: str) -> np.ndarray:
        """int64: the positions of the documents that hold `token` (bm25s's column of the term); empty for a
        term no document holds."""
        term = self.bm25.vocab_dict.get(token) if self.bm25 is not None else None
        if term is None:
            return np.zeros(0, dtype=np.int64)
        pointers = self.bm25.scores["indptr"]
        return np.asarray(self.bm25.scores["indices"][pointers[term] : pointers[term + 1]], dtype=np.int64)


class LexicalIndex:
    """BM25 over every field of a `FieldCorpus` and over its documents; build, save, load, search."""

    def __init__(
        self,
        ids: Sequence[NodeId],
        labels: Sequence[str],
        node_types: Sequence[str],
        indexes: Mapping[str, _FieldIndex],
        config: Bm25Config,
    ) -> None:
        self.ids = tuple(ids)
        self.node_types = tuple(node_types)
        self.config = config
        self._label_codes = np.asarray([self.node_types.index(label) for label in labels], dtype=np.int32)
        self._indexes = dict(indexes)
        self._tokenize = QueryTokenizer(config)
        self._positions = NodePositions(self.ids)

    @property
    def fields(self) -> tuple[str, ...]:
        """The mFAR fields, in corpus order (the document index is searched with `search_document`)."""
        return tuple(name for name in self._indexes if name != DOC_FIELD)

    def labels_of(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        """The type of each of `ids` that this index holds; ids it does not hold are left out."""
        rows = self._positions.row_of
        return {node_id: self.node_types[self._label_codes[rows[node_id]]] for node_id in ids if node_id in rows}

    # ---- building and persistence ---------------------------------------------------------------------
    @classmethod
    def build(cls, corpus: FieldCorpus, config: Bm25Config = Bm25Config(), progress: bool = False) -> LexicalIndex:
        bad = [name for name in corpus.fields if not is_identifier(name)]
        if bad:
            raise TextBranchError(f"field names {bad} cannot name index folders: letters, digits and _, letter first")
        tokenizer = QueryTokenizer(config)
        columns = {**corpus.fields, DOC_FIELD: corpus.documents}
        indexes = {}
        for name, texts in tqdm(columns.items(), desc="bm25 fields", unit="field", disable=not progress):
            indexes[name] = _build_field(tokenizer, texts, config, progress)
        return cls(corpus.ids, corpus.labels, corpus.node_types, indexes, config)

    def save(self, directory: Path) -> None:
        """Writes the index into `directory` (created); the manifest, with every file's sha256, goes last."""
        directory.mkdir(parents=True, exist_ok=True)
        labels = [self.node_types[code] for code in self._label_codes]
        nodes = StoredNodes(ids=list(self.ids), labels=labels, node_types=list(self.node_types))
        (directory / "nodes.json").write_text(nodes.model_dump_json())
        for name, index in self._indexes.items():
            field_dir = directory / "fields" / name
            field_dir.mkdir(parents=True, exist_ok=True)
            np.save(field_dir / "rows.npy", index.rows)
            if index.bm25 is not None:
                index.bm25.save(str(field_dir), show_progress=False)
        manifest = {
            "format": FORMAT_VERSION,
            "bm25s": bm25s.__version__,
            "config": asdict(self.config),
            "fields": list(self._indexes),
            "nodes": len(self.ids),
        }
        finish_save(directory, manifest)

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex:
        """Reads a saved index after checking its files against the manifest; a damaged one is `IndexDamaged`
        (one line), an absent one a `TextBranchError`."""
        raw = read_manifest(directory)
        if raw is None:
            raise TextBranchError(f"no complete text index in {directory}: {MANIFEST} is missing")
        with damage_guard("text index", directory):
            manifest = LexicalManifest.model_validate(raw)
            files = check_files(directory, manifest.files)
            nodes = read_nodes(directory, manifest.nodes)
            indexes = {}
            for name in manifest.fields:
                field_dir = directory / "fields" / name
                rows = read_rows(field_dir / "rows.npy", _saved_documents(field_dir), manifest.nodes)
                bm25 = bm25s.BM25.load(str(field_dir), show_progress=False) if len(rows) else None
                if bm25 is not None:
                    _check_bm25(bm25, len(rows))
                indexes[name] = _FieldIndex(rows, bm25)
            index = cls(nodes.ids, nodes.labels, nodes.node_types, indexes, manifest.config.config())
        if files.full and manifest.files is None:
            add_file_records(directory, raw)
        files.commit()
        return index

    # ---- search ---------------------------------------------------------------------------------------
    def search(
        self, query: str, k: int = DEFAULT_TOP_K, *, node_type: str | None = None, fields: Sequence[str] | None = None
    ) -> dict[str, ScoredNodes]:
        """Top `k` nodes per field (all mFAR fields unless `fields`), optionally of one node type only."""
        return self.score(query, node_type=node_type, fields=fields).top(k)

    def search_field(
        self, field: str, query: str, k: int = DEFAULT_TOP_K, *, node_type: str | None = None
    ) -> ScoredNodes:
        return self.score(query, node_type=node_type, fields=[field]).top(k)[field]

    def search_document(self, query: str, k: int = DEFAULT_TOP_K, *, node_type: str | None = None) -> ScoredNodes:
        """The single-field baseline: BM25 over the whole node document."""
        return self.search_field(DOC_FIELD, query, k, node_type=node_type)

    def relative_document_scores(self, query: str, ids: Sequence[NodeId]) -> np.ndarray:
        """float64 (len(ids),): BM25 of `query` under each node's whole document divided by the best document's
        of the whole index (0 without any of its words, 1 for a node as good as the best)."""
        scores = self.score(query, fields=[DOC_FIELD])
        best = float(scores.by_field[DOC_FIELD].max(initial=0.0))
        found = scores.of(DOC_FIELD, ids)
        return found / best if best > 0.0 else found

    def held_word_shares(
        self, query: str, fields: Sequence[str], k: int, node_type: str | None = None, min_words: int = 1
    ) -> list[tuple[NodeId, str, float]]:
        """The `k` nodes (of `node_type`, when given) whose text in one of `fields` holds the largest share of
        the query's distinct terms, each weighted by its idf in that field (`held_shares`): (id, type, best
        share over the fields), best first, ties by id. [] when the query has fewer than `min_words` terms."""
        self._check_fields(fields)
        terms = list(dict.fromkeys(self._tokenize(query)))
        if len(terms) < min_words:
            return []
        best: dict[NodeId, float] = {}
        for name in fields:
            index = self._indexes[name]
            if index.bm25 is None:
                continue
            shares = held_shares([index.holders(term) for term in terms], len(index.rows))
            eligible = self._eligible(name, node_type)
            if eligible is not None:
                shares = np.where(eligible, shares, 0.0)
            top = np.flatnonzero(shares > 0.0)
            if len(top) > k:
                top = top[np.argpartition(-shares[top], k - 1)[:k]]
            for position in top:
                node_id = self.ids[index.rows[position]]
                best[node_id] = max(float(shares[position]), best.get(node_id, 0.0))
        ranked = sorted(best.items(), key=lambda item: (-item[1], str(item[0])))[:k]
        labels = self.labels_of(node_id for node_id, _ in ranked)
        return [(node_id, labels[node_id], share) for node_id, share in ranked]

    def score(
        self, query: str, *, node_type: str | None = None, fields: Sequence[str] | None = None
    ) -> QueryFieldScores:
        """BM25 of `query` under every node of each field (all mFAR fields unless `fields`): the top of a field
        and any node's score come from the same arrays."""
        names = list(fields or self.fields)
        self._check_fields(names)
        if node_type is not None and node_type not in self.node_types:
            raise TextBranchError(f"unknown node type '{node_type}'; known: {list(self.node_types)}")
        tokens = self._tokenize(query)
        return QueryFieldScores(self, {name: self._indexes[name].scores(tokens) for name in names}, node_type)

    def _check_fields(self, names: Sequence[str]) -> None:
        """A clear error naming the fields this index does not hold, and those it does."""
        unknown = [name for name in names if name not in self._indexes]
        if unknown:
            raise TextBranchError(f"unknown text field {', '.join(map(repr, unknown))}; known: {list(self._indexes)}")

    def _eligible(self, field: str, node_type: str | None) -> np.ndarray | None:
        """bool (documents of `field`,): which are of `node_type`; None when every type counts."""
        if node_type is None:
            return None
        return self._label_codes[self._indexes[field].rows] == self.node_types.index(node_type)

    def _positions_in(self, field: str, ids: Sequence[NodeId]) -> np.ndarray:
        """int64 (len(ids),): each node's document position in `field`, -1 where it has no text there (or is
        not in the index)."""
        return self._positions.in_field(field, self._indexes[field].rows, ids)


@dataclass(frozen=True)
class QueryFieldScores:
    """One query's BM25 under every document of some fields (zero where no query term occurs), optionally
    restricted to one node type."""

    index: LexicalIndex
    by_field: Mapping[str, np.ndarray]  # float32 (documents of the field,)
    node_type: str | None

    def top(self, k: int) -> dict[str, ScoredNodes]:
        """The `k` best nodes of each field with a positive score, best first, ties in corpus order."""
        if k < 1:
            raise TextBranchError(f"k must be at least 1; got {k}")
        return {field: self._top(field, scores, k) for field, scores in self.by_field.items()}

    def of(self, field: str, ids: Sequence[NodeId]) -> np.ndarray:
        """float64 (len(ids),): the score of each node in `field`; 0 for a node without text there or of
        another type than the one asked for."""
        scores = self.by_field[field]
        positions = self.index._positions_in(field, ids)
        found = np.where(positions >= 0, scores[np.maximum(positions, 0)], 0.0).astype(np.float64)
        eligible = self.index._eligible(field, self.node_type)
        if eligible is not None:
            found = np.where((positions >= 0) & eligible[np.maximum(positions, 0)], found, 0.0)
        return found

    def _top(self, field: str, scores: np.ndarray, k: int) -> ScoredNodes:
        keep = scores > 0  # Lucene's idf is positive: zero means no query term occurs in the field
        eligible = self.index._eligible(field, self.node_type)
        if eligible is not None:
            keep &= eligible
        candidates = np.flatnonzero(keep)
        if len(candidates) > k:
            candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
        rows = self.index._indexes[field].rows[candidates]
        order = np.lexsort((rows, -scores[candidates]))  # best first, ties in corpus order
        ids = self.index.ids
        return ScoredNodes(
            field,
            tuple(ids[row] for row in rows[order]),
            tuple(float(score) for score in scores[candidates][order]),
        )


def held_shares(holders: Sequence[np.ndarray], documents: int) -> np.ndarray:
    """float64 (documents,): per document, the share of the terms' weight that it holds, a term weighing its
    Lucene idf, ln(1 + (N - df + 0.5) / (df + 0.5)), with `holders[i]` the documents holding term i (pure). A
    term no document holds weighs most and is held by none: a word the texts never use lowers every share."""
    held = np.zeros(documents, dtype=np.float64)
    total = 0.0
    for found in holders:
        weight = float(np.log1p((documents - len(found) + 0.5) / (len(found) + 0.5)))
        total += weight
        held[found] += weight  # a document holds a term once: its positions are distinct
    return held / total if total > 0.0 else held


def _build_field(tokenizer: QueryTokenizer, texts: Sequence[str], config: Bm25Config, progress: bool) -> _FieldIndex:
    tokenized = tokenizer.corpus_tokens(texts, progress)
    rows = np.asarray([row for row, ids in enumerate(tokenized.ids) if ids], dtype=np.int64)
    if not len(rows):
        return _FieldIndex(rows, None)
    bm25 = bm25s.BM25(k1=config.k1, b=config.b, method="lucene")
    bm25.index(([tokenized.ids[row] for row in rows], tokenized.vocab), show_progress=progress)
    return _FieldIndex(rows, bm25)


def _saved_documents(field_dir: Path) -> int:
    """The length rows.npy must have: bm25s's document count, or 0 for a field without any text (no bm25s
    files saved)."""
    params = field_dir / "params.index.json"
    if not params.exists() and not params.is_symlink():
        return 0
    return int(json.loads(read_regular(params))["num_docs"])


def _check_bm25(bm25: Any, documents: int) -> None:
    """The bm25s arrays fit together: a CSC matrix of `documents` columns with finite scores."""
    scores = bm25.scores
    data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
    if scores["num_docs"] != documents or indptr.ndim != 1 or len(indptr) < 1:
        raise ValueError(f"its bm25s arrays describe {scores['num_docs']} documents; {documents} were indexed")
    if indptr[0] != 0 or indptr[-1] != len(data) or len(indices) != len(data) or np.any(np.diff(indptr) < 0):
        raise ValueError("its bm25s arrays do not fit together")
    if len(indices) and (indices.min() < 0 or indices.max() >= documents):
        raise ValueError("its bm25s arrays point past the last document")
    if not np.isfinite(data).all():
        raise ValueError("its bm25s scores are not all finite")
    vocabulary = np.fromiter(bm25.vocab_dict.values(), dtype=np.int64, count=len(bm25.vocab_dict))
    empty = bm25.vocab_dict.get("")  # bm25s's id for the empty token, one past the last term: never queried
    terms = vocabulary[vocabulary != empty] if empty is not None else vocabulary
    if (empty is not None and not 0 <= empty < len(indptr)) or (
        len(terms) and (terms.min() < 0 or terms.max() >= len(indptr) - 1)
    ):
        raise ValueError("its bm25s vocabulary names terms the arrays lack")


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The raw manifest: None when absent or of an older format, `IndexDamaged` when unreadable."""
    return read_stored_manifest(directory, MANIFEST, FORMAT_VERSION, "text index")


def _is_complete(directory: Path) -> bool:
    return has_manifest(directory, MANIFEST, FORMAT_VERSION)


def open_lexical_index(
    root: Path,
    skb_name: str,
    fingerprint: str,
    corpus: Callable[[], FieldCorpus],
    *,
    config: Bm25Config = Bm25Config(),
    progress: bool = True,
    legacy_root: Path | None = None,
) -> LexicalIndex:
    """The index of this SKB content: loaded when built before with this config, else built and saved.

    `corpus` is called only to build. The build is written to a temporary sibling folder and renamed into
    place, so an interrupted build leaves nothing that loads; indexes of other fingerprints of the same SKB
    in this `root` are then removed (one content per SKB is kept). A damaged index is built again, with one
    warning line. `legacy_root`: the old shared root, from which this index is moved into `root` when `root`
    lacks it (`adopt_legacy`).
    """
    directory = index_directory(root, skb_name, fingerprint)
    clean_stale_staging(directory.parent)
    source = adopt_legacy(root, legacy_root, directory.relative_to(root), "text index", _is_complete)
    try:
        manifest = read_manifest(source)
        if manifest is not None:
            with damage_guard("text index", source):
                stored = LexicalManifest.model_validate(manifest)
            if stored.config.config() == config:
                logger.info("loading text index %s", source)
                return LexicalIndex.load(source)
    except IndexDamaged as error:
        logger.warning("%s; building it again", error)
    logger.info("building text index %s", directory)
    index = LexicalIndex.build(corpus(), config, progress)
    if install_build(directory, index.save, _is_complete):
        _remove_other_fingerprints(directory)
    return index


def _remove_other_fingerprints(keep: Path) -> None:
    for sibling in keep.parent.iterdir():
        building = sibling.name.startswith(".")  # another process's staging folder
        # any index, a damaged one too (a manifest file present): one content per SKB is kept
        if sibling != keep and not building and sibling.is_dir() and os.path.lexists(sibling / MANIFEST):
            logger.info("removing text index of an older SKB content: %s", sibling)
            shutil.rmtree(sibling, ignore_errors=True)
