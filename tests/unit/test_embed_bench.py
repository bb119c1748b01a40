"""The throughput command stays runnable (tiny run; the numbers themselves are not checked)."""

from __future__ import annotations

import pytest

from grasp_agent.embed.packaged_models import minilm_model_dir
from grasp_agent.embed.sentence_encoder import load_sentence_encoder
from grasp_agent.errors import EmbeddingError
from grasp_agent.evaluation.embed_bench import KINDS, format_table, run_benchmark, synthetic_texts


@pytest.fixture(scope="module")
def model_ready() -> None:
    try:
        minilm_model_dir()
    except EmbeddingError as exc:
        pytest.skip(str(exc))


def test_synthetic_texts_hit_their_token_targets(model_ready: None) -> None:
    tokenizer = load_sentence_encoder(minilm_model_dir()).tokenizer
    for kind in KINDS:
        texts = synthetic_texts(tokenizer, kind, 5)
        counts = [tokenizer.count(text) for text in texts]
        assert all(abs(count - kind.tokens) <= 2 for count in counts), (kind, counts)
        assert texts == synthetic_texts(tokenizer, kind, 5)  # seeded


def test_benchmark_prints_one_row_per_kind(model_ready: None) -> None:
    results = run_benchmark(["all-MiniLM-L6-v2"], ["numpy", "onnx"], batch_size=8, scale=0.01)
    table = format_table(results)
    assert len(results) == 2 * len(KINDS) and all(result.seconds > 0 for result in results)
    assert {result.backend for result in results} == {"numpy", "onnx"}
    assert "texts/s" in table and "doc ~400 tok" in table
