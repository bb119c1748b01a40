"""Read-only packs of precomputed embeddings, keyed like the vector cache (model id + exact text).

Embedding the full HPO's documents costs about 12 minutes of two CPU cores with MiniLM (4.6 M tokens at the
hardware's limit, see docs/benchmarks.md), so the package ships those vectors for the default model. A pack
answers only for its own model id and for texts whose sha256 it holds, so it can never serve a vector of
another text, truncation or model: anything it lacks is embedded as usual. Vectors are stored as int8 with
one float32 scale per vector (a quarter of float32's size; cosine to the original >= 0.9999, tested).

File format: an uncompressed, pickle-free `.npz` with `keys` (N x 16 uint8: the first 16 bytes of the cache
key, sorted), `codes` (N x D int8), `scales` (N float32) and `manifest` (UTF-8 JSON bytes: model id,
dimension, count, what it was made from).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grasp_agent.embed.cache import cache_key
from grasp_agent.errors import EmbeddingError

KEY_BYTES = 16  # 128 bits of sha256: a collision among millions of texts is out of reach
PACK_SUFFIX = ".npz"
PACKAGED_PACKS_DIR = Path(__file__).resolve().parent / "packs"


def pack_key(model_id: str, text: str) -> bytes:
    return cache_key(model_id, text)[:KEY_BYTES]


def quantize_int8(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-vector int8: codes in [-127, 127] and the scale that maps them back."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peaks = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, dtype=np.float32)
    scales = np.where(peaks > 0, peaks / 127.0, 1.0).astype(np.float32)
    codes = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return codes, scales


def dequantize_int8(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Back to float32, L2-normalised again (the embedder contract: unit vectors)."""
    vectors = codes.astype(np.float32) * scales[:, None]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


@dataclass(frozen=True)
class VectorPack:
    model_id: str
    dimension: int
    keys: np.ndarray  # (N, KEY_BYTES) uint8, rows sorted
    codes: np.ndarray  # (N, dimension) int8
    scales: np.ndarray  # (N,) float32
    source: str = ""  # what the vectors were computed from, for people

    def __post_init__(self) -> None:
        count = len(self.keys)
        if (
            self.keys.shape != (count, KEY_BYTES)
            or self.codes.shape != (count, self.dimension)
            or self.scales.shape != (count,)
        ):
            raise EmbeddingError(
                f"vector pack for {self.model_id!r} has inconsistent arrays: keys {self.keys.shape}, codes "
                f"{self.codes.shape}, scales {self.scales.shape}; allowed: N x {KEY_BYTES}, N x {self.dimension}, N"
            )

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def build(cls, model_id: str, texts: Sequence[str], vectors: np.ndarray, source: str = "") -> VectorPack:
        """One entry per distinct text (the first vector of a repeated text wins)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(texts) != len(vectors):
            raise EmbeddingError(
                f"a vector pack needs one vector per text; got {len(texts)} texts and vectors of shape {vectors.shape}"
            )
        first: dict[bytes, int] = {}
        for index, text in enumerate(texts):
            first.setdefault(pack_key(model_id, text), index)
        order = sorted(first)
        rows = np.fromiter((first[key] for key in order), dtype=np.int64, count=len(order))
        keys = np.frombuffer(b"".join(order), dtype=np.uint8).reshape(len(order), KEY_BYTES)
        codes, scales = quantize_int8(vectors[rows])
        return cls(model_id, int(vectors.shape[1]), keys.copy(), codes, scales, source)

    def lookup(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors this pack holds for `texts` (unit float32); texts it lacks are left out."""
        wanted = list(dict.fromkeys(texts))
        if not wanted or not len(self):
            return {}
        probe = np.frombuffer(b"".join(pack_key(self.model_id, text) for text in wanted), dtype=np.uint8)
        probe_rows = probe.reshape(len(wanted), KEY_BYTES).view(f"V{KEY_BYTES}").ravel()
        sorted_rows = np.ascontiguousarray(self.keys).view(f"V{KEY_BYTES}").ravel()
        positions = np.clip(np.searchsorted(sorted_rows, probe_rows), 0, len(self) - 1)
        found = sorted_rows[positions] == probe_rows
        if not found.any():
            return {}
        hits = positions[found]
        vectors = dequantize_int8(self.codes[hits], self.scales[hits])
        return dict(zip((text for text, hit in zip(wanted, found, strict=True) if hit), vectors, strict=True))

    def save(self, path: Path) -> None:
        manifest = {
            "model_id": self.model_id,
            "dimension": self.dimension,
            "count": len(self),
            "source": self.source,
            "format": "grasp-vector-pack/1 int8",
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as stream:  # np.savez on a path would append .npz to other suffixes
            np.savez(
                stream,
                keys=self.keys,
                codes=self.codes,
                scales=self.scales,
                manifest=np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8),
            )

    @classmethod
    def load(cls, path: Path) -> VectorPack:
        try:
            with np.load(path, allow_pickle=False) as data:
                manifest = json.loads(bytes(data["manifest"]).decode())
                return cls(
                    str(manifest["model_id"]),
                    int(manifest["dimension"]),
                    data["keys"],
                    data["codes"],
                    data["scales"],
                    str(manifest.get("source", "")),
                )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise EmbeddingError(f"vector pack {path} could not be read: {error}") from error


def read_manifest(path: Path) -> dict[str, object]:
    """The manifest alone (cheap: the arrays stay on disk)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            manifest = json.loads(bytes(data["manifest"]).decode())
    except (OSError, ValueError, KeyError) as error:
        raise EmbeddingError(f"vector pack {path} could not be read: {error}") from error
    if not isinstance(manifest, dict):
        raise EmbeddingError(f"vector pack {path}: manifest is not a JSON object")
    return manifest


class PackShelf:
    """The packs of one folder, opened on first use per model id; shared by an embedder and its siblings."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._lock = threading.Lock()
        self._by_model: dict[str, list[VectorPack]] = {}
        self._paths: dict[str, list[Path]] | None = None

    @property
    def directory(self) -> Path:
        return self._directory

    def model_ids(self) -> list[str]:
        return sorted(self._index())

    def _index(self) -> dict[str, list[Path]]:
        with self._lock:
            if self._paths is None:
                paths: dict[str, list[Path]] = {}
                if self._directory.is_dir():
                    for path in sorted(self._directory.glob(f"*{PACK_SUFFIX}")):
                        paths.setdefault(str(read_manifest(path)["model_id"]), []).append(path)
                self._paths = paths
            return self._paths

    def packs_for(self, model_id: str) -> list[VectorPack]:
        paths = self._index().get(model_id, [])
        if not paths:
            return []
        with self._lock:
            if model_id not in self._by_model:
                self._by_model[model_id] = [VectorPack.load(path) for path in paths]
            return self._by_model[model_id]

    def lookup(self, model_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for pack in self.packs_for(model_id):
            found.update(pack.lookup(text for text in texts if text not in found))
        return found
