"""Pure float32 numpy building blocks of a transformer encoder (no torch).

Sequences travel "packed": the tokens of all sequences of a batch are stacked into one (tokens, hidden)
matrix with no padding. Dense layers then work on every token at once, and attention runs per group of
equal-length sequences, so no padded position ever enters a sum. That is what makes a text's vector
independent of the other texts in its batch, up to float32 rounding (bit for bit with some BLAS builds; OpenBLAS
0.3.31 picks its matmul kernel by matrix size, which moves the last bits).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

F32 = np.float32

# Rational approximation of erf on [-4, 4] (outside, erf is +-1 in float32). The same odd/even
# polynomial pair Eigen and XLA use for float32 erf; error below 5e-7 against math.erf.
_ERF_NUMERATOR = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF_DENOMINATOR = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)


@dataclass(frozen=True)
class LengthRun:
    """`count` consecutive sequences of `length` tokens each, starting at token row `start`."""

    start: int
    count: int
    length: int


def length_runs(lengths: Sequence[int]) -> tuple[LengthRun, ...]:
    """Groups consecutive sequences of equal length (callers sort by length, so groups are large)."""
    runs: list[LengthRun] = []
    start = 0
    index = 0
    while index < len(lengths):
        length = lengths[index]
        count = 1
        while index + count < len(lengths) and lengths[index + count] == length:
            count += 1
        runs.append(LengthRun(start=start, count=count, length=length))
        start += count * length
        index += count
    return tuple(runs)


# Elementwise work runs in slices this large (floats) so the ~30 passes of erf stay in the CPU cache
# instead of streaming a (tokens, 4*hidden) matrix through memory 30 times.
_ELEMENTWISE_CHUNK = 1 << 16
# Attention scores per step (floats); bounded for the same reason.
_SCORES_CHUNK = 1 << 19


def _polynomial(x2: np.ndarray, coefficients: Sequence[float]) -> np.ndarray:
    result = x2 * F32(coefficients[0])
    result += F32(coefficients[1])
    for coefficient in coefficients[2:]:
        result *= x2
        result += F32(coefficient)
    return result


def erf(x: np.ndarray) -> np.ndarray:
    """float32 erf (numpy has none, and scipy is not a dependency)."""
    clipped = np.clip(x, F32(-4.0), F32(4.0)).astype(F32, copy=False)
    x2 = clipped * clipped
    numerator = _polynomial(x2, _ERF_NUMERATOR)
    numerator *= clipped
    numerator /= _polynomial(x2, _ERF_DENOMINATOR)
    return numerator


def _gelu_slice(x: np.ndarray) -> None:
    cdf = erf(x * F32(1.0 / math.sqrt(2.0)))
    cdf += F32(1.0)
    cdf *= F32(0.5)
    x *= cdf


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, x * Phi(x), as BERT's "gelu" (not the tanh approximation "gelu_new"); in place on `x`."""
    flat = x.reshape(-1)
    for start in range(0, flat.shape[0], _ELEMENTWISE_CHUNK):
        _gelu_slice(flat[start : start + _ELEMENTWISE_CHUNK])
    return x


def _layer_norm_rows(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = np.mean(centered * centered, axis=-1, keepdims=True)
    variance += F32(eps)
    centered /= np.sqrt(variance)
    centered *= weight
    centered += bias
    return centered


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis with the biased variance, as torch.nn.LayerNorm (rows in cache-sized slices)."""
    out = np.empty_like(x)
    rows = max(1, _ELEMENTWISE_CHUNK // x.shape[-1])
    for start in range(0, x.shape[0], rows):
        out[start : start + rows] = _layer_norm_rows(x[start : start + rows], weight, bias, eps)
    return out


def linear(x: np.ndarray, weight_t: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """x @ W^T + b with W stored already transposed (in_features, out_features)."""
    out = x @ weight_t
    out += bias
    return out


AttentionBias = Callable[[int], np.ndarray]
"""Maps a sequence length L to an additive (heads, L, L) score bias (MPNet's relative positions)."""


def packed_self_attention(
    qkv: np.ndarray, runs: Sequence[LengthRun], heads: int, bias_for_length: AttentionBias | None = None
) -> np.ndarray:
    """Multi-head attention of packed sequences: qkv (tokens, 3*hidden) -> context (tokens, hidden).

    Runs of equal-length sequences go through stacked matmuls, in cache-sized steps; numpy calls BLAS once
    per (sequence, head) matrix and reduces row by row, so a sequence's result depends only on its own
    tokens, never on its neighbours or on how the steps were cut.
    """
    tokens, width = qkv.shape
    hidden = width // 3
    context = np.empty((tokens, hidden), dtype=F32)
    for run in runs:
        bias = bias_for_length(run.length) if bias_for_length is not None else None
        # Whole sequences per step while their scores fit the chunk, else a few heads of one sequence.
        per_sequence = heads * run.length * run.length
        sequences_per_step = max(1, _SCORES_CHUNK // per_sequence)
        for first in range(0, run.count, sequences_per_step):
            count = min(sequences_per_step, run.count - first)
            start = run.start + first * run.length
            rows = slice(start, start + count * run.length)
            context[rows] = _attend(qkv[rows], count, run.length, heads, bias)
    return context


def _attend(qkv: np.ndarray, count: int, length: int, heads: int, bias: np.ndarray | None) -> np.ndarray:
    """Attention of `count` sequences of equal `length`; returns their packed context rows."""
    head_dim = qkv.shape[1] // (3 * heads)
    block = qkv.reshape(count, length, 3, heads, head_dim)
    # Contiguous copies: numpy's stacked matmul only reaches BLAS for contiguous matrices (3-4x faster).
    # Scaling the queries (length x head_dim) is cheaper than scaling the scores (length x length).
    query = np.ascontiguousarray(block[:, :, 0].transpose(0, 2, 1, 3)) * F32(1.0 / math.sqrt(head_dim))
    key_t = np.ascontiguousarray(block[:, :, 1].transpose(0, 2, 3, 1))
    value = np.ascontiguousarray(block[:, :, 2].transpose(0, 2, 1, 3))
    mixed = np.empty_like(query)
    heads_per_step = heads if count > 1 else max(1, min(heads, _SCORES_CHUNK // (length * length)))
    for head in range(0, heads, heads_per_step):
        part = slice(head, head + heads_per_step)
        scores = query[:, part] @ key_t[:, part]
        if bias is not None:
            scores += bias[part]
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        totals = scores.sum(axis=-1, keepdims=True)
        # Normalising after the value matmul divides length x head_dim numbers instead of length x length.
        np.matmul(scores, value[:, part], out=mixed[:, part])
        mixed[:, part] /= totals
    return mixed.transpose(0, 2, 1, 3).reshape(count * length, heads * head_dim)


def mean_pool(hidden: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
    """Mean of each packed sequence's token vectors (sentence-transformers' attention-masked mean)."""
    starts = np.zeros(len(lengths), dtype=np.intp)
    np.cumsum(lengths[:-1], out=starts[1:])
    sums = np.add.reduceat(hidden, starts, axis=0)
    return sums / np.asarray(lengths, dtype=F32)[:, None]


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; eps as torch.nn.functional.normalize so a zero row stays zero."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, F32(1e-12))).astype(F32, copy=False)
