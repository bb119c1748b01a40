"""BERT and MPNet encoders as a numpy forward pass over safetensors weights (float32, no torch).

Both are post-LayerNorm transformers with identical blocks; they differ only in the embeddings (BERT adds
token-type 0 and positions from 0; MPNet positions start after the pad id) and in MPNet's learned relative
position bias, added to every layer's attention scores. Weights are read once into frozen dataclasses with
matrices pre-transposed for `x @ W`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

from grasp_agent.embed.model_spec import EncoderConfig
from grasp_agent.embed.numpy_ops import (
    F32,
    LengthRun,
    gelu,
    layer_norm,
    length_runs,
    linear,
    packed_self_attention,
)
from grasp_agent.errors import EmbeddingError

# Checkpoints saved from a task model prefix every key with the base model's name.
_KEY_PREFIXES = ("bert.", "mpnet.", "model.")


@dataclass(frozen=True)
class LayerWeights:
    qkv_t: np.ndarray  # (hidden, 3*hidden): query, key and value projections fused into one matmul
    qkv_bias: np.ndarray
    attn_out_t: np.ndarray
    attn_out_bias: np.ndarray
    attn_norm_weight: np.ndarray
    attn_norm_bias: np.ndarray
    up_t: np.ndarray
    up_bias: np.ndarray
    down_t: np.ndarray
    down_bias: np.ndarray
    out_norm_weight: np.ndarray
    out_norm_bias: np.ndarray


@dataclass(frozen=True)
class EncoderWeights:
    config: EncoderConfig
    word_embeddings: np.ndarray
    position_embeddings: np.ndarray
    token_type_row: np.ndarray | None  # BERT's token-type-0 embedding; MPNet has none
    embed_norm_weight: np.ndarray
    embed_norm_bias: np.ndarray
    layers: tuple[LayerWeights, ...]
    relative_bias: np.ndarray | None  # MPNet: (buckets, heads), shared by all layers


def _strip_prefix(tensors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    for prefix in _KEY_PREFIXES:
        if any(key.startswith(prefix + "embeddings.") for key in tensors):
            return {key.removeprefix(prefix): value for key, value in tensors.items()}
    return dict(tensors)


class _TensorSource:
    """Pops named tensors as float32, saying which file lacks one (a wrong or truncated checkpoint)."""

    def __init__(self, tensors: Mapping[str, np.ndarray], path: Path) -> None:
        self._tensors = _strip_prefix(tensors)
        self._path = path

    def get(self, name: str) -> np.ndarray:
        if name not in self._tensors:
            raise EmbeddingError(f"weights {self._path} have no tensor {name!r}; is this the right model?")
        return np.ascontiguousarray(self._tensors[name], dtype=F32)

    def transposed(self, name: str) -> np.ndarray:
        return np.ascontiguousarray(self.get(name).T)


@dataclass(frozen=True)
class _LayerNames:
    """Where one architecture keeps each weight of an encoder layer (relative to `encoder.layer.<i>.`)."""

    qkv: tuple[str, str, str]
    attn_out: str
    attn_norm: str


_BERT_NAMES = _LayerNames(
    ("attention.self.query", "attention.self.key", "attention.self.value"),
    "attention.output.dense",
    "attention.output.LayerNorm",
)
_MPNET_NAMES = _LayerNames(
    ("attention.attn.q", "attention.attn.k", "attention.attn.v"), "attention.attn.o", "attention.LayerNorm"
)


def _layer_weights(source: _TensorSource, index: int, names: _LayerNames) -> LayerWeights:
    p = f"encoder.layer.{index}."
    projections = [f"{p}{part}" for part in names.qkv]
    return LayerWeights(
        qkv_t=np.ascontiguousarray(np.concatenate([source.get(f"{name}.weight") for name in projections]).T),
        qkv_bias=np.concatenate([source.get(f"{name}.bias") for name in projections]),
        attn_out_t=source.transposed(f"{p}{names.attn_out}.weight"),
        attn_out_bias=source.get(f"{p}{names.attn_out}.bias"),
        attn_norm_weight=source.get(f"{p}{names.attn_norm}.weight"),
        attn_norm_bias=source.get(f"{p}{names.attn_norm}.bias"),
        up_t=source.transposed(f"{p}intermediate.dense.weight"),
        up_bias=source.get(f"{p}intermediate.dense.bias"),
        down_t=source.transposed(f"{p}output.dense.weight"),
        down_bias=source.get(f"{p}output.dense.bias"),
        out_norm_weight=source.get(f"{p}output.LayerNorm.weight"),
        out_norm_bias=source.get(f"{p}output.LayerNorm.bias"),
    )


def load_encoder_weights(path: Path, config: EncoderConfig) -> EncoderWeights:
    """Reads model.safetensors into float32 arrays laid out for the numpy forward pass."""
    try:
        tensors = load_file(str(path))
    except Exception as exc:  # safetensors raises its own SafetensorError and OSError
        raise EmbeddingError(f"weights {path} could not be read: {exc}") from exc
    source = _TensorSource(tensors, path)
    is_mpnet = config.model_type == "mpnet"
    names = _MPNET_NAMES if is_mpnet else _BERT_NAMES
    weights = EncoderWeights(
        config=config,
        word_embeddings=source.get("embeddings.word_embeddings.weight"),
        position_embeddings=source.get("embeddings.position_embeddings.weight"),
        token_type_row=None if is_mpnet else source.get("embeddings.token_type_embeddings.weight")[0],
        embed_norm_weight=source.get("embeddings.LayerNorm.weight"),
        embed_norm_bias=source.get("embeddings.LayerNorm.bias"),
        layers=tuple(_layer_weights(source, index, names) for index in range(config.num_layers)),
        relative_bias=source.get("encoder.relative_attention_bias.weight") if is_mpnet else None,
    )
    _check_shapes(weights, path)
    return weights


def _check_shapes(weights: EncoderWeights, path: Path) -> None:
    config = weights.config
    expected = (config.max_position_embeddings, config.hidden_size)
    if weights.position_embeddings.shape != expected:
        raise EmbeddingError(
            f"weights {path}: position embeddings have shape {weights.position_embeddings.shape}, "
            f"config.json says {expected}"
        )
    if weights.layers[0].up_t.shape != (config.hidden_size, config.intermediate_size):
        raise EmbeddingError(
            f"weights {path}: feed-forward shape {weights.layers[0].up_t.shape} does not match "
            f"config.json ({config.hidden_size}, {config.intermediate_size})"
        )


def relative_position_buckets(length: int, num_buckets: int, max_distance: int = 128) -> np.ndarray:
    """MPNet's (T5-style, bidirectional) bucket of every (query, key) offset, shape (length, length).

    Half the buckets hold keys before the query, half after; offsets below a quarter of the buckets get
    their own bucket, larger ones share log-spaced buckets up to max_distance. float32 arithmetic as the
    reference so offsets on a bucket boundary land in the same bucket.
    """
    positions = np.arange(length)
    relative = positions[None, :] - positions[:, None]  # key - query
    half = num_buckets // 2
    n = -relative
    buckets = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    scaled = np.log(np.maximum(n, 1).astype(F32) / F32(max_exact)) / F32(math.log(max_distance / max_exact))
    large = max_exact + (scaled * F32(half - max_exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return buckets + np.where(n < max_exact, n, large)


def _position_ids(ids: np.ndarray, runs: Sequence[LengthRun], config: EncoderConfig) -> np.ndarray:
    if config.model_type == "mpnet":
        # As HF's create_position_ids_from_input_ids: count non-pad tokens, pads keep the pad index.
        positions = np.empty_like(ids)
        for run in runs:
            rows = slice(run.start, run.start + run.count * run.length)
            not_pad = (ids[rows].reshape(run.count, run.length) != config.pad_token_id).astype(np.int64)
            positions[rows] = (np.cumsum(not_pad, axis=1) * not_pad + config.pad_token_id).reshape(-1)
        return positions
    return np.concatenate([np.tile(np.arange(run.length), run.count) for run in runs])


def _embed(weights: EncoderWeights, ids: np.ndarray, runs: Sequence[LengthRun]) -> np.ndarray:
    hidden = weights.word_embeddings[ids]
    if weights.token_type_row is not None:
        hidden += weights.token_type_row
    hidden += weights.position_embeddings[_position_ids(ids, runs, weights.config)]
    return layer_norm(hidden, weights.embed_norm_weight, weights.embed_norm_bias, weights.config.layer_norm_eps)


def _layer(
    weights: LayerWeights,
    hidden: np.ndarray,
    runs: Sequence[LengthRun],
    config: EncoderConfig,
    biases: dict[int, np.ndarray],
) -> np.ndarray:
    qkv = linear(hidden, weights.qkv_t, weights.qkv_bias)
    context = packed_self_attention(qkv, runs, config.num_heads, biases.__getitem__ if biases else None)
    attended = linear(context, weights.attn_out_t, weights.attn_out_bias)
    attended += hidden
    hidden = layer_norm(attended, weights.attn_norm_weight, weights.attn_norm_bias, config.layer_norm_eps)
    expanded = gelu(linear(hidden, weights.up_t, weights.up_bias))
    output = linear(expanded, weights.down_t, weights.down_bias)
    output += hidden
    return layer_norm(output, weights.out_norm_weight, weights.out_norm_bias, config.layer_norm_eps)


def _relative_biases(weights: EncoderWeights, runs: Sequence[LengthRun]) -> dict[int, np.ndarray]:
    """(heads, L, L) score bias per sequence length in this batch; computed once, used by every layer."""
    if weights.relative_bias is None:
        return {}
    num_buckets = weights.config.relative_attention_num_buckets
    lengths = sorted({run.length for run in runs})
    return {
        length: np.ascontiguousarray(
            weights.relative_bias[relative_position_buckets(length, num_buckets)].transpose(2, 0, 1)
        )
        for length in lengths
    }


def encode_packed(weights: EncoderWeights, ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
    """Last hidden states (tokens, hidden) of sequences packed back to back in `ids` (no padding)."""
    if int(sum(lengths)) != ids.shape[0]:
        raise EmbeddingError(f"packed ids hold {ids.shape[0]} tokens but lengths add up to {sum(lengths)}")
    longest = max(lengths, default=0)
    if longest > weights.config.max_tokens:
        raise EmbeddingError(f"a sequence has {longest} tokens; allowed: at most {weights.config.max_tokens}")
    runs = length_runs(lengths)
    hidden = _embed(weights, ids, runs)
    biases = _relative_biases(weights, runs)
    for layer in weights.layers:
        hidden = _layer(layer, hidden, runs, weights.config, biases)
    return hidden
