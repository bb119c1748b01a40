"""The trained reranker: a cross-encoder over the packaged MiniLM, a LoRA adapter plus a score head, run in numpy.

`grasp train reranker` fine-tunes all-MiniLM-L6-v2 as a cross-encoder (query and document read together)
with a listwise loss and writes a folder of a few MB:

- `adapter.safetensors`: LoRA factors `layer.<i>.<linear>.a` (rank, in) and `.b` (out, rank) for the six
  linear maps of every layer (query, key, value, attn_out, up, down), and the head `head.weight` (hidden,),
  `head.bias` (1,);
- `reranker.json` (`ListwiseManifest`): the base model and the sha256 of its weights, rank and alpha, the
  token limits, and what it was trained on.

Loading merges W + (alpha / rank) * B @ A into the base's weights once, so scoring is one encoder pass per
(query, document) pair with no torch: the score is head . unit(mean of the last hidden states) + bias, which
is the sentence encoder's own output, so the merged weights run on the embedder's ONNX graph (default, about
2x the numpy encoder's speed on this CPU) or on the numpy encoder. Pairs are [CLS] query [SEP] document [SEP]
with token type 0 throughout, exactly as in training.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from safetensors.numpy import load_file, save_file

from grasp_agent.embed.bert_numpy import EncoderWeights, LayerWeights, encode_packed
from grasp_agent.embed.numpy_ops import F32, l2_normalize, mean_pool
from grasp_agent.embed.onnx_encoder import BATCH_TOKENS, length_batches, padded_batch
from grasp_agent.embed.sentence_encoder import SentenceEncoder, load_sentence_encoder
from grasp_agent.rerank.base import Reranker, RerankError, check_scores

MANIFEST_NAME = "reranker.json"
ADAPTER_NAME = "adapter.safetensors"
FORMAT_VERSION = 1
LinearName = Literal["query", "key", "value", "attn_out", "up", "down"]
LINEAR_NAMES: tuple[LinearName, ...] = ("query", "key", "value", "attn_out", "up", "down")
Backend = Literal["onnx", "numpy"]


class ListwiseManifest(BaseModel):
    """What `reranker.json` says about an adapter; read before any weight is touched."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: int = Field(default=FORMAT_VERSION, description="Bumped when the folder layout changes")
    base_model: str = Field(description="The packaged sentence-transformers model the adapter was trained on")
    base_weights_sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of its model.safetensors")
    rank: int = Field(ge=1, le=512)
    alpha: float = Field(gt=0.0)
    max_tokens: int = Field(ge=8, le=512, description="Pair length, special tokens included")
    max_query_tokens: int = Field(ge=1, le=256, description="Query tokens kept before the document is cut")
    skb: str = Field(description="The SKB whose training split it learned from")
    training: dict[str, Any] = Field(default_factory=dict, description="Data, steps, losses, valid metrics")

    @property
    def scale(self) -> float:
        return self.alpha / self.rank


@dataclass(frozen=True)
class LoraFactors:
    """One linear map's update: W' = W + scale * b @ a, with W of shape (out, in) as torch stores it."""

    a: np.ndarray  # (rank, in)
    b: np.ndarray  # (out, rank)

    def delta(self, scale: float) -> np.ndarray:
        return (scale * (self.b @ self.a)).astype(F32)


@dataclass(frozen=True)
class ListwiseAdapter:
    manifest: ListwiseManifest
    factors: Mapping[tuple[int, LinearName], LoraFactors]
    head_weight: np.ndarray  # (hidden,)
    head_bias: float


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def save_adapter(folder: Path, adapter: ListwiseAdapter) -> None:
    """Writes the two files; the folder is created when missing, files of an older adapter are replaced."""
    folder.mkdir(parents=True, exist_ok=True)
    tensors: dict[str, np.ndarray] = {
        "head.weight": adapter.head_weight.astype(F32),
        "head.bias": np.asarray([adapter.head_bias], dtype=F32),
    }
    for (layer, name), factors in adapter.factors.items():
        tensors[f"layer.{layer}.{name}.a"] = np.ascontiguousarray(factors.a, dtype=F32)
        tensors[f"layer.{layer}.{name}.b"] = np.ascontiguousarray(factors.b, dtype=F32)
    save_file(tensors, str(folder / ADAPTER_NAME))
    (folder / MANIFEST_NAME).write_text(adapter.manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")


def read_manifest(folder: Path) -> ListwiseManifest:
    path = folder / MANIFEST_NAME
    if not path.is_file():
        raise RerankError(f"{folder} holds no {MANIFEST_NAME}; allowed: a folder written by `grasp train reranker`")
    try:
        manifest = ListwiseManifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise RerankError(f"{path} is not a reranker manifest: {exc}") from exc
    if manifest.format_version != FORMAT_VERSION:
        raise RerankError(f"{path} has format_version {manifest.format_version}; this grasp reads {FORMAT_VERSION}")
    return manifest


def read_adapter(folder: Path) -> ListwiseAdapter:
    manifest = read_manifest(folder)
    path = folder / ADAPTER_NAME
    try:
        tensors = load_file(str(path))
    except Exception as exc:  # safetensors raises its own error type and OSError
        raise RerankError(f"reranker adapter {path} could not be read: {exc}") from exc
    factors: dict[tuple[int, LinearName], LoraFactors] = {}
    for key in tensors:
        parts = key.split(".")
        if len(parts) == 4 and parts[0] == "layer" and parts[1].isdigit() and parts[3] == "a":
            name = next((linear for linear in LINEAR_NAMES if linear == parts[2]), None)
            if name is None:
                raise RerankError(f"reranker adapter {path} has {key}; allowed linear maps: {list(LINEAR_NAMES)}")
            b_key = f"layer.{parts[1]}.{name}.b"
            if b_key not in tensors:
                raise RerankError(f"reranker adapter {path} has {key} but no {b_key}")
            factors[(int(parts[1]), name)] = LoraFactors(tensors[key], tensors[b_key])
    for key in ("head.weight", "head.bias"):
        if key not in tensors:
            raise RerankError(f"reranker adapter {path} has no tensor {key!r}")
    return ListwiseAdapter(manifest, factors, tensors["head.weight"].astype(F32), float(tensors["head.bias"][0]))


def _merged_layer(layer: LayerWeights, index: int, adapter: ListwiseAdapter, hidden: int) -> LayerWeights:
    """The layer with every LoRA update added; the numpy encoder keeps weights transposed (x @ W.T)."""
    scale = adapter.manifest.scale
    updates: dict[str, np.ndarray] = {}
    qkv_t = layer.qkv_t.copy()
    projections: tuple[LinearName, ...] = ("query", "key", "value")
    for offset, name in enumerate(projections):
        factors = adapter.factors.get((index, name))
        if factors is not None:
            qkv_t[:, offset * hidden : (offset + 1) * hidden] += factors.delta(scale).T
    updates["qkv_t"] = qkv_t
    others: tuple[tuple[LinearName, str], ...] = (("attn_out", "attn_out_t"), ("up", "up_t"), ("down", "down_t"))
    for name, field in others:
        factors = adapter.factors.get((index, name))
        if factors is not None:
            updates[field] = np.ascontiguousarray(getattr(layer, field) + factors.delta(scale).T)
    return replace(layer, **updates)


def merged_weights(base: EncoderWeights, adapter: ListwiseAdapter) -> EncoderWeights:
    hidden = base.config.hidden_size
    if adapter.head_weight.shape != (hidden,):
        raise RerankError(
            f"reranker head has shape {adapter.head_weight.shape}; the base model's hidden size is {hidden}"
        )
    layers = len(base.layers)
    stray = sorted({layer for layer, _ in adapter.factors if not 0 <= layer < layers})
    if stray:
        raise RerankError(f"reranker adapter has factors for layers {stray}; the base model has {layers}")
    return replace(
        base, layers=tuple(_merged_layer(layer, index, adapter, hidden) for index, layer in enumerate(base.layers))
    )


class ListwiseReranker(Reranker):
    """Scores (query, document) pairs with a merged MiniLM cross-encoder; thread-safe (immutable weights, and
    `InferenceSession.run` may be called from several threads)."""

    def __init__(
        self,
        folder: Path,
        base_model_dir: Path,
        *,
        backend: Backend = "onnx",
        batch_size: int = 16,
        threads: int | None = None,
    ) -> None:
        adapter = read_adapter(folder)
        manifest = adapter.manifest
        base = load_sentence_encoder(base_model_dir)
        found = sha256_of(base.spec.weights_path)
        if found != manifest.base_weights_sha256:
            raise RerankError(
                f"reranker {folder} was trained on {manifest.base_model} weights with sha256 "
                f"{manifest.base_weights_sha256[:12]}..., but {base.spec.weights_path} has "
                f"{found[:12]}...; retrain it with `grasp train reranker`"
            )
        if manifest.max_tokens > base.spec.encoder.max_tokens:
            raise RerankError(
                f"reranker {folder} wants {manifest.max_tokens} tokens; {manifest.base_model} "
                f"covers {base.spec.encoder.max_tokens}"
            )
        self._encoder = SentenceEncoder(base.spec, base.tokenizer, merged_weights(base.weights, adapter))
        self._session = _onnx_session(self._encoder.weights, threads) if backend == "onnx" else None
        self._adapter = adapter
        self._batch_size = max(1, batch_size)
        self._id = f"listwise:{manifest.skb}:{sha256_of(folder / ADAPTER_NAME)[:12]}:max{manifest.max_tokens}"

    @property
    def model_id(self) -> str:
        return self._id

    @property
    def manifest(self) -> ListwiseManifest:
        return self._adapter.manifest

    def pair_ids(self, query: str, docs: Sequence[str]) -> list[np.ndarray]:
        manifest = self._adapter.manifest
        return self._encoder.tokenizer.encode_pairs(query, docs, manifest.max_tokens, manifest.max_query_tokens)

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        if not docs:
            return []
        ids = self.pair_ids(query, docs)
        vectors = self._onnx_vectors(ids) if self._session is not None else self._numpy_vectors(ids)
        scores = vectors.astype(np.float64) @ self._adapter.head_weight + self._adapter.head_bias
        return check_scores(scores.tolist(), len(docs), self.model_id)

    def _numpy_vectors(self, ids: Sequence[np.ndarray]) -> np.ndarray:
        order = sorted(range(len(ids)), key=lambda index: len(ids[index]))  # similar lengths share a batch
        vectors = np.empty((len(ids), self._encoder.dimension), dtype=F32)
        for start in range(0, len(order), self._batch_size):
            batch = order[start : start + self._batch_size]
            lengths = [len(ids[index]) for index in batch]
            hidden = encode_packed(self._encoder.weights, np.concatenate([ids[index] for index in batch]), lengths)
            vectors[batch] = l2_normalize(mean_pool(hidden, lengths))
        return vectors

    def _onnx_vectors(self, ids: Sequence[np.ndarray]) -> np.ndarray:
        session = self._session
        assert session is not None  # only called with the onnx backend
        order = sorted(range(len(ids)), key=lambda index: len(ids[index]))
        vectors = np.empty((len(ids), self._encoder.dimension), dtype=F32)
        pad = self._encoder.spec.encoder.pad_token_id
        for batch in length_batches([len(ids[index]) for index in order], self._batch_size, BATCH_TOKENS):
            rows = [order[position] for position in batch]
            padded, mask = padded_batch([ids[index] for index in rows], pad)
            vectors[rows] = session.run(None, {"input_ids": padded, "attention_mask": mask})[0]
        return vectors


def _onnx_session(weights: EncoderWeights, threads: int | None) -> Any:
    """An ONNX Runtime session of the sentence graph over the merged weights, built in memory (about a second)."""
    import onnxruntime

    from grasp_agent.embed.onnx_graph import build_sentence_graph

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # shape-merge notices about com.microsoft outputs are noise
    if threads is not None:
        options.intra_op_num_threads = threads
    model = build_sentence_graph(weights).SerializeToString()
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


__all__ = [
    "ADAPTER_NAME",
    "LINEAR_NAMES",
    "MANIFEST_NAME",
    "ListwiseAdapter",
    "ListwiseManifest",
    "ListwiseReranker",
    "LoraFactors",
    "merged_weights",
    "read_adapter",
    "read_manifest",
    "save_adapter",
    "sha256_of",
]
