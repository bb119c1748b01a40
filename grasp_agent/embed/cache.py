"""A content-addressed vector cache in SQLite, so re-ingestion never re-embeds an unchanged text."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import EmbeddingError
from grasp_agent.private_files import create_private_file, tighten

if TYPE_CHECKING:
    from grasp_agent.embed.vector_pack import PackShelf

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID",
    # The dimension per model id: checks stored vectors, and answers `dimension` without asking a server.
    "CREATE TABLE IF NOT EXISTS models (model_id TEXT PRIMARY KEY, dimension INTEGER NOT NULL)",
)
_LOOKUP_CHUNK = 500  # SQLite bound-parameter limits are 999 on old builds


def cache_key(model_id: str, text: str) -> bytes:
    """sha256 of model id and text; the NUL separator keeps ("a", "bc") and ("ab", "c") apart."""
    return hashlib.sha256(model_id.encode("utf-8") + b"\x00" + text.encode("utf-8")).digest()


def _chunks(items: Sequence[bytes], size: int) -> Iterator[Sequence[bytes]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class CachedEmbedder(GraspEmbedder):
    """Wraps an embedder; only texts not yet in the cache file reach it.

    Vectors are stored as little-endian float32 bytes under sha256(model_id + text), so a different model or
    truncation (both part of model_id) never returns a stale vector. Misses go to the inner embedder in chunks
    of `write_every` texts, each committed at once, so an interrupted ingestion keeps what it paid for.
    One connection behind a lock serves all threads of the process; the inner embedder runs outside the lock.
    `packs`: read-only packs of precomputed vectors (vector_pack.py) asked after the cache file and before the
    inner embedder; their hits are not copied into the cache file (the pack stays the one copy).
    """

    def __init__(
        self, inner: GraspEmbedder, path: Path, *, write_every: int = 1024, packs: PackShelf | None = None
    ) -> None:
        super().__init__()
        if write_every < 1:
            raise EmbeddingError(f"write_every {write_every} is not allowed; allowed: >= 1")
        self._inner = inner
        self._path = path
        self._write_every = write_every
        self._lock = threading.Lock()
        self._packs = packs
        self._hits = 0
        self._pack_hits = 0
        self._misses = 0
        try:
            # 0600, as the instance folder is private: SQLite gives its -wal and -shm files the same mode
            create_private_file(path)
            if not path.is_file():  # a FIFO would block SQLite's first read forever
                raise EmbeddingError(f"embedding cache {path} could not be opened: not a regular file")
            self._connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._connection.execute("PRAGMA journal_mode=WAL")  # readers in other processes do not block us
            self._connection.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                self._connection.execute(statement)
            for companion in ("-wal", "-shm"):  # made by an older version with the umask's mode
                tighten(path.with_name(path.name + companion))
        except (OSError, sqlite3.Error) as exc:
            raise EmbeddingError(f"embedding cache {path} could not be opened: {exc}") from exc

    @property
    def inner(self) -> GraspEmbedder:
        return self._inner

    @property
    def path(self) -> Path:
        return self._path

    @property
    def hits(self) -> int:
        return self._hits

    @property
    def misses(self) -> int:
        return self._misses

    @property
    def pack_hits(self) -> int:
        """Texts answered by a vector pack (counted in neither hits nor misses)."""
        return self._pack_hits

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimension(self) -> int:
        known = self._known_dimension(self._inner.model_id)
        return known if known is not None else self._inner.dimension

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)

    @property
    def max_tokens(self) -> int | None:
        return self._inner.max_tokens

    def with_max_tokens(self, max_tokens: int) -> CachedEmbedder:
        """The inner embedder's sibling behind the same cache file (keys differ through its model_id)."""
        sibling = CachedEmbedder.__new__(CachedEmbedder)
        sibling.__dict__.update(self.__dict__)  # shares the connection and its lock
        sibling._inner = self._inner.with_max_tokens(max_tokens)
        sibling._hits = sibling._misses = sibling._pack_hits = 0
        return sibling

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbeddingError("embed_texts takes a sequence of texts, got one str; use embed_query for one text")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model_id = self._inner.model_id
        keys = [cache_key(model_id, text) for text in texts]
        found = self._lookup(model_id, keys)
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found:
                missing.setdefault(key, text)  # one embedding per distinct text, however often it repeats
        packed = self._from_packs(model_id, missing)
        found.update(packed)
        for key in packed:
            del missing[key]
        for chunk in _chunks(list(missing), self._write_every):
            vectors = self._inner.embed_texts([missing[key] for key in chunk])
            found.update(zip(chunk, vectors, strict=True))
            self._store(model_id, chunk, vectors)
        with self._lock:
            self._hits += len(texts) - len(missing) - len(packed)
            self._pack_hits += len(packed)
            self._misses += len(missing)
        return np.stack([found[key] for key in keys]).astype(np.float32, copy=False)

    def _from_packs(self, model_id: str, missing: dict[bytes, str]) -> dict[bytes, np.ndarray]:
        if self._packs is None or not missing:
            return {}
        vectors = self._packs.lookup(model_id, list(missing.values()))
        packed = {key: vectors[text] for key, text in missing.items() if text in vectors}
        sample = next(iter(packed.values()), None)
        if sample is not None and sample.shape != (self._inner.dimension,):
            raise EmbeddingError(
                f"vector pack for {model_id!r} in {self._packs.directory} holds {sample.shape} "
                f"vectors; the model gives {self._inner.dimension} dimensions"
            )
        return packed

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Stores vectors this model produced elsewhere (e.g. the document embeddings a load wrote to Neo4j),
        so that embedding those texts again is a lookup. The caller vouches they come from this model_id."""
        if len(texts) != len(vectors):
            raise EmbeddingError(f"remember got {len(texts)} texts and {len(vectors)} vectors; allowed: one each")
        if texts:
            model_id = self._inner.model_id
            self._store(model_id, [cache_key(model_id, text) for text in texts], np.asarray(vectors, dtype=np.float32))

    def _known_dimension(self, model_id: str) -> int | None:
        with self._lock:
            row = self._connection.execute("SELECT dimension FROM models WHERE model_id = ?", (model_id,)).fetchone()
        return None if row is None else int(row[0])

    def _lookup(self, model_id: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        dimension = self._known_dimension(model_id)
        if dimension is None:  # nothing was ever stored for this model
            return {}
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(keys)), _LOOKUP_CHUNK):
                marks = ",".join("?" * len(chunk))
                rows = self._connection.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
                for key, blob in rows:
                    # A blob of another size comes from a damaged file: a miss, and embedding again repairs it.
                    if len(blob) == 4 * dimension:
                        found[bytes(key)] = np.frombuffer(blob, dtype="<f4")
        return found

    def _store(self, model_id: str, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        dimension = int(vectors.shape[1])
        known = self._known_dimension(model_id)
        if known is not None and known != dimension:
            raise EmbeddingError(
                f"model {model_id!r} returned {dimension}-dim vectors but the cache {self._path} holds "
                f"{known}-dim ones for it; allowed: the same dimension (delete the cache file after a model change)"
            )
        rows = [(key, np.asarray(vector, dtype="<f4").tobytes()) for key, vector in zip(keys, vectors, strict=True)]
        with self._lock:
            try:
                self._connection.execute("BEGIN")
                self._connection.execute(
                    "INSERT OR IGNORE INTO models (model_id, dimension) VALUES (?, ?)", (model_id, dimension)
                )
                self._connection.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)
                self._connection.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                message = f"embedding cache {self._path}: writing {len(rows)} vectors failed: {exc}"
                raise EmbeddingError(message) from exc

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
