"""The numpy building blocks: erf/GELU accuracy, packing, MPNet's relative position buckets, model specs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.embed.bert_numpy import relative_position_buckets
from grasp_agent.embed.model_spec import read_encoder_config
from grasp_agent.embed.numpy_ops import (
    LengthRun,
    erf,
    gelu,
    l2_normalize,
    layer_norm,
    length_runs,
    mean_pool,
    packed_self_attention,
)
from grasp_agent.errors import EmbeddingError


def test_erf_matches_math_erf_to_float32_precision() -> None:
    grid = np.linspace(-7.0, 7.0, 20001, dtype=np.float32)
    expected = np.array([math.erf(float(value)) for value in grid])
    assert erf(grid).dtype == np.float32
    assert np.abs(erf(grid) - expected).max() < 5e-7


def test_gelu_is_the_exact_erf_form() -> None:
    grid = np.linspace(-10.0, 10.0, 4001, dtype=np.float32)
    expected = np.array([0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0))) for x in grid.astype(np.float64)])
    assert np.abs(gelu(grid.copy()) - expected).max() < 5e-6  # relative to |x| <= 10
    assert gelu(np.array([1.0], np.float32))[0] == pytest.approx(0.8413447, abs=1e-6)  # tanh form gives 0.8411920


def test_layer_norm_matches_the_textbook_formula() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 384)).astype(np.float32)
    weight, bias = rng.standard_normal(384).astype(np.float32), rng.standard_normal(384).astype(np.float32)
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-12) * weight + bias
    np.testing.assert_allclose(layer_norm(x, weight, bias, 1e-12), expected, atol=2e-5)


def test_equal_lengths_are_grouped_into_runs() -> None:
    assert length_runs([3, 3, 5, 7, 7, 7]) == (
        LengthRun(start=0, count=2, length=3),
        LengthRun(start=6, count=1, length=5),
        LengthRun(start=11, count=3, length=7),
    )
    assert length_runs([]) == ()


def test_packed_attention_equals_attention_per_sequence() -> None:
    rng = np.random.default_rng(2)
    lengths = [2, 4, 4, 9]
    qkv = rng.standard_normal((sum(lengths), 3 * 24)).astype(np.float32)
    packed = packed_self_attention(qkv, length_runs(lengths), heads=4)
    start = 0
    for length in lengths:
        block = qkv[start : start + length].astype(np.float64).reshape(length, 3, 4, 6)
        q, k, v = (block[:, part].transpose(1, 0, 2) for part in range(3))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(6)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        expected = (weights @ v).transpose(1, 0, 2).reshape(length, 24)
        np.testing.assert_allclose(packed[start : start + length], expected, atol=1e-5)
        start += length


def test_mean_pool_and_normalize() -> None:
    hidden = np.arange(12, dtype=np.float32).reshape(6, 2)
    np.testing.assert_allclose(mean_pool(hidden, [2, 4]), [[1, 2], [7, 8]])
    np.testing.assert_allclose(np.linalg.norm(l2_normalize(np.array([[3, 4], [0, 0]], np.float32)), axis=1), [1, 0])


def test_relative_position_buckets_match_mpnet() -> None:
    # Values from transformers' MPNetEncoder.relative_position_bucket (checked equal for lengths up to 600).
    buckets = relative_position_buckets(200, num_buckets=32)
    row = buckets[0]
    assert [row[k] for k in (0, 1, 7, 8, 15, 16, 17, 31, 32, 63, 64, 127, 128, 199)] == [
        0,
        17,
        23,
        24,
        25,
        26,
        26,
        27,
        28,
        29,
        30,
        31,
        31,
        31,
    ]
    assert list(buckets[20, :5]) == [10, 10, 10, 10, 10]  # keys before the query: the lower half
    assert np.array_equal(np.diag(buckets), np.zeros(200))


def _write_config(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "config.json"
    base = {
        "model_type": "bert",
        "hidden_size": 8,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 16,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512,
    }
    path.write_text(json.dumps({**base, **fields}))
    return path


def test_encoder_config_refuses_what_numpy_does_not_reproduce(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="hidden_act 'gelu_new' is not supported"):
        read_encoder_config(_write_config(tmp_path, hidden_act="gelu_new"))
    with pytest.raises(EmbeddingError, match="model_type 'roberta' is not supported"):
        read_encoder_config(_write_config(tmp_path, model_type="roberta"))
    mpnet = read_encoder_config(_write_config(tmp_path, model_type="mpnet", max_position_embeddings=514))
    assert (mpnet.position_offset, mpnet.max_tokens) == (2, 512)
