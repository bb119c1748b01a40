"""The trained listwise reranker: pair tokenisation, the adapter folder, merging, and numpy == torch scores."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.packaged_models import MINILM, minilm_model_dir
from grasp_agent.embed.sentence_encoder import load_sentence_encoder
from grasp_agent.errors import ConfigError
from grasp_agent.rerank.bi_encoder import BiEncoderReranker
from grasp_agent.rerank.factory import listwise_reranker_dir, make_reranker
from grasp_agent.rerank.listwise import (
    LINEAR_NAMES,
    MANIFEST_NAME,
    ListwiseAdapter,
    ListwiseManifest,
    ListwiseReranker,
    LoraFactors,
    RerankError,
    merged_weights,
    read_adapter,
    save_adapter,
    sha256_of,
)
from grasp_agent.skb.hpo import HpoSource

QUERY = "Which genes are associated with abnormal heart morphology?"
DOCS = [
    "Gene TTN. Associated phenotypes: dilated cardiomyopathy, abnormal heart morphology.",
    "Disease Marfan syndrome. Phenotypes: tall stature, aortic root dilatation, arachnodactyly, " * 20,
    "Phenotype Seizure.",
]


@pytest.fixture(scope="module")
def minilm() -> Path:
    return minilm_model_dir()


def _manifest(minilm: Path, rank: int = 4) -> ListwiseManifest:
    return ListwiseManifest(
        base_model=MINILM,
        base_weights_sha256=sha256_of(minilm / "model.safetensors"),
        rank=rank,
        alpha=2.0 * rank,
        max_tokens=64,
        max_query_tokens=12,
        skb="hpo",
    )


def _random_adapter(minilm: Path, seed: int = 0, rank: int = 4) -> ListwiseAdapter:
    rng = np.random.default_rng(seed)
    shapes = {
        "query": (384, 384),
        "key": (384, 384),
        "value": (384, 384),
        "attn_out": (384, 384),
        "up": (1536, 384),
        "down": (384, 1536),
    }
    factors = {
        (layer, name): LoraFactors(
            rng.normal(0, 0.05, (rank, shapes[name][1])).astype(np.float32),
            rng.normal(0, 0.05, (shapes[name][0], rank)).astype(np.float32),
        )
        for layer in range(6)
        for name in LINEAR_NAMES
    }
    return ListwiseAdapter(_manifest(minilm, rank), factors, rng.normal(0, 1, 384).astype(np.float32), 0.25)


def test_pairs_keep_the_query_and_cut_the_document(minilm: Path) -> None:
    tokenizer = load_sentence_encoder(minilm).tokenizer
    pairs = tokenizer.encode_pairs(QUERY, DOCS, 64, 6)
    cls, sep = pairs[0][0], pairs[0][-1]
    assert all(len(ids) <= 64 for ids in pairs) and len(pairs[1]) == 64  # the long document is cut to fit
    query_ids = tokenizer.encode([QUERY], 512)[0][1:-1]
    for ids in pairs:
        assert ids[0] == cls and ids[-1] == sep and int((ids == sep).sum()) == 2
        assert len(query_ids) > 6 and list(ids[1:7]) == list(query_ids[:6]) and ids[7] == sep  # 6 query tokens
    with pytest.raises(Exception, match="leaves no room"):
        tokenizer.encode_pairs(QUERY, DOCS, 9, 6)


def test_adapter_folder_round_trips_and_merges(tmp_path: Path, minilm: Path) -> None:
    adapter = _random_adapter(minilm)
    save_adapter(tmp_path, adapter)
    again = read_adapter(tmp_path)
    assert again.manifest == adapter.manifest and again.head_bias == pytest.approx(0.25)
    assert set(again.factors) == set(adapter.factors)
    np.testing.assert_array_equal(again.factors[(3, "up")].b, adapter.factors[(3, "up")].b)
    base = load_sentence_encoder(minilm).weights
    merged = merged_weights(base, again)
    scale = adapter.manifest.scale
    delta_key = (adapter.factors[(2, "key")].b @ adapter.factors[(2, "key")].a) * scale  # (out, in)
    np.testing.assert_allclose(
        merged.layers[2].qkv_t[:, 384:768] - base.layers[2].qkv_t[:, 384:768], delta_key.T, atol=1e-5
    )
    delta_up = (adapter.factors[(5, "up")].b @ adapter.factors[(5, "up")].a) * scale
    np.testing.assert_allclose(merged.layers[5].up_t - base.layers[5].up_t, delta_up.T, atol=1e-5)
    np.testing.assert_array_equal(merged.layers[5].up_bias, base.layers[5].up_bias)
    np.testing.assert_array_equal(merged.word_embeddings, base.word_embeddings)


def test_reranker_refuses_other_base_weights_and_bad_folders(tmp_path: Path, minilm: Path) -> None:
    adapter = _random_adapter(minilm)
    wrong = adapter.manifest.model_copy(update={"base_weights_sha256": "0" * 64})
    save_adapter(tmp_path / "wrong", ListwiseAdapter(wrong, adapter.factors, adapter.head_weight, 0.0))
    with pytest.raises(RerankError, match="retrain it"):
        ListwiseReranker(tmp_path / "wrong", minilm)
    with pytest.raises(RerankError, match="holds no reranker.json"):
        ListwiseReranker(tmp_path, minilm)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / MANIFEST_NAME).write_text(json.dumps({"base_model": MINILM}), encoding="utf-8")
    with pytest.raises(RerankError, match="not a reranker manifest"):
        ListwiseReranker(tmp_path / "bad", minilm)


def test_numpy_scores_equal_the_trained_torch_model(tmp_path: Path, minilm: Path) -> None:
    """The exported adapter run by the numpy encoder gives the scores the torch model it came from gives."""
    pytest.importorskip("peft")
    import torch

    from grasp_agent.training.reranker_train import RerankTrainConfig, _Scorer

    config = RerankTrainConfig(rank=4, alpha=8.0, max_tokens=64, max_query_tokens=12)
    scorer = _Scorer(minilm, config)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():  # peft starts B at zero: give every update a real value
        for name, parameter in scorer.model.named_parameters():
            if "lora_B" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.05)
    scorer.model.eval()
    tokenizer = load_sentence_encoder(minilm).tokenizer
    with torch.no_grad():
        expected = scorer.scores(tokenizer.encode_pairs(QUERY, DOCS, 64, 12)).numpy()
    save_adapter(tmp_path, scorer.adapter(_manifest(minilm)))
    reranker = ListwiseReranker(tmp_path, minilm, batch_size=2)  # the embedder's ONNX graph, merged weights
    np.testing.assert_allclose(reranker.score(QUERY, DOCS), expected, rtol=1e-4, atol=1e-4)
    numpy_backend = ListwiseReranker(tmp_path, minilm, backend="numpy", batch_size=2)
    np.testing.assert_allclose(numpy_backend.score(QUERY, DOCS), expected, rtol=1e-4, atol=1e-4)
    assert reranker.model_id.startswith("listwise:hpo:") and reranker.model_id.endswith(":max64")
    assert reranker.score(QUERY, []) == []


def test_settings_choose_the_listwise_reranker(tmp_path: Path, minilm: Path, embedder: GraspEmbedder) -> None:
    schema = HpoSource(subset_roots=("HP:0011097",)).schema()
    here = Settings(project_root=tmp_path)
    folder = tmp_path / ".grasp" / "rerankers" / "hpo"
    save_adapter(folder, _random_adapter(minilm))
    assert listwise_reranker_dir(here, "hpo") == folder  # trained here wins over the packaged one
    assert isinstance(make_reranker(here, embedder, None, schema), ListwiseReranker)
    other = Settings(project_root=tmp_path, reranker="listwise")
    with pytest.raises(ConfigError, match="found no adapter for SKB 'unknown'"):
        make_reranker(other, embedder, None, schema.model_copy(update={"name": "unknown"}))
    auto_elsewhere = make_reranker(here, embedder, None, schema.model_copy(update={"name": "unknown"}))
    assert isinstance(auto_elsewhere, BiEncoderReranker)  # auto falls back when no adapter exists


def test_scores_do_not_depend_on_batching(tmp_path: Path, minilm: Path) -> None:
    save_adapter(tmp_path, _random_adapter(minilm, seed=3))
    reranker = ListwiseReranker(tmp_path, minilm, batch_size=1, backend="numpy")
    docs = list(DOCS)
    first = dict(zip(docs, reranker.score(QUERY, docs), strict=True))
    random.Random(0).shuffle(docs)
    second = dict(zip(docs, reranker.score(QUERY, docs), strict=True))
    assert first == pytest.approx(second, abs=1e-5)  # scores do not depend on the batch a document lands in
