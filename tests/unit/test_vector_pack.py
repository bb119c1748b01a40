"""Vector packs: int8 round trip, exact-text lookup per model id, the cache asking packs before the model,
and the packaged HPO packs against fresh MiniLM vectors."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.embed.local import LocalEmbedder
from grasp_agent.embed.vector_pack import (
    PACKAGED_PACKS_DIR,
    PackShelf,
    VectorPack,
    dequantize_int8,
    quantize_int8,
    read_manifest,
)
from grasp_agent.errors import EmbeddingError
from tests.unit.test_embed_cache import HashEmbedder

# Per-vector int8 of a unit vector: each component is off by at most peak/254, so the cosine to the original
# stays above 0.9999 for 384 dims (measured minimum over 2,000 random vectors: about 0.99998).
MIN_COSINE = 0.9999


def _unit_rows(count: int, dimension: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, dimension)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_int8_round_trip_keeps_direction_and_unit_length() -> None:
    vectors = _unit_rows(2000, 384)
    codes, scales = quantize_int8(vectors)
    assert codes.dtype == np.int8 and scales.dtype == np.float32 and np.abs(codes).max() == 127
    restored = dequantize_int8(codes, scales)
    assert np.allclose(np.linalg.norm(restored, axis=1), 1.0, atol=1e-6)
    assert (restored * vectors).sum(axis=1).min() >= MIN_COSINE


def test_zero_vector_survives_quantisation() -> None:
    codes, scales = quantize_int8(np.zeros((1, 4), dtype=np.float32))
    assert not np.isnan(dequantize_int8(codes, scales)).any()


def test_lookup_answers_exact_texts_only(tmp_path: Path) -> None:
    texts = ["Seizure", "Epileptic spasm", "seizure", "Seizure "]
    vectors = _unit_rows(len(texts), 16)
    pack = VectorPack.build("model:a", texts, vectors, source="test")
    pack.save(tmp_path / "a.npz")
    loaded = VectorPack.load(tmp_path / "a.npz")
    assert (loaded.model_id, loaded.dimension, len(loaded), loaded.source) == ("model:a", 16, 4, "test")
    found = loaded.lookup(["seizure", "Seizures", "Seizure", "Seizure"])
    assert sorted(found) == ["Seizure", "seizure"]  # case and whitespace are part of the text
    assert float(found["seizure"] @ vectors[2]) >= MIN_COSINE
    assert float(found["Seizure"] @ vectors[0]) >= MIN_COSINE
    assert loaded.lookup([]) == {}


def test_a_repeated_text_keeps_its_first_vector() -> None:
    vectors = _unit_rows(2, 8)
    pack = VectorPack.build("m", ["same", "same"], vectors)
    assert len(pack) == 1
    assert float(pack.lookup(["same"])["same"] @ vectors[0]) >= MIN_COSINE


def test_bad_input_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="one vector per text"):
        VectorPack.build("m", ["a", "b"], _unit_rows(3, 8))
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(b"not a zip file")
    with pytest.raises(EmbeddingError, match="damaged.npz"):
        VectorPack.load(damaged)
    with pytest.raises(EmbeddingError, match="damaged.npz"):
        PackShelf(tmp_path).model_ids()


def test_shelf_serves_each_model_id_its_own_packs(tmp_path: Path) -> None:
    VectorPack.build("m:64", ["a", "b"], _unit_rows(2, 8, seed=1)).save(tmp_path / "names.npz")
    VectorPack.build("m:256", ["a", "c"], _unit_rows(2, 8, seed=2)).save(tmp_path / "docs-1.npz")
    VectorPack.build("m:256", ["d"], _unit_rows(1, 8, seed=3)).save(tmp_path / "docs-2.npz")
    shelf = PackShelf(tmp_path)
    assert shelf.model_ids() == ["m:256", "m:64"]
    assert sorted(shelf.lookup("m:256", ["a", "b", "c", "d"])) == ["a", "c", "d"]
    assert sorted(shelf.lookup("m:64", ["a", "b", "c", "d"])) == ["a", "b"]
    assert shelf.lookup("other", ["a"]) == {}
    assert PackShelf(tmp_path / "missing").lookup("m:64", ["a"]) == {}


def test_cache_asks_packs_before_the_model(tmp_path: Path) -> None:
    inner = HashEmbedder(dimension=8, max_tokens=512)
    texts = ["alpha", "beta"]
    fresh = inner.embed_texts(texts)
    inner.calls.clear()
    VectorPack.build(inner.model_id, texts, fresh).save(tmp_path / "packs" / "p.npz")
    with CachedEmbedder(inner, tmp_path / "cache.sqlite", packs=PackShelf(tmp_path / "packs")) as cached:
        vectors = cached.embed_texts(["alpha", "gamma", "beta", "alpha"])
        assert inner.calls == [["gamma"]]  # only the text no pack holds reaches the model
        assert (cached.pack_hits, cached.misses, cached.hits) == (2, 1, 1)
        assert float(vectors[0] @ fresh[0]) >= MIN_COSINE and float(vectors[2] @ fresh[1]) >= MIN_COSINE
        assert np.array_equal(vectors[0], vectors[3])
        # Another truncation is another model id: the pack does not answer for it.
        sibling = cached.with_max_tokens(64)
        sibling.embed_texts(["alpha"])
        assert (sibling.pack_hits, sibling.misses) == (0, 1)


def test_a_pack_of_another_dimension_under_the_same_id_is_refused(tmp_path: Path) -> None:
    inner = HashEmbedder(dimension=8)
    VectorPack.build(inner.model_id, ["alpha"], _unit_rows(1, 16)).save(tmp_path / "packs" / "p.npz")
    with (
        CachedEmbedder(inner, tmp_path / "cache.sqlite", packs=PackShelf(tmp_path / "packs")) as cached,
        pytest.raises(EmbeddingError, match="16"),
    ):
        cached.embed_texts(["alpha"])


def test_packaged_packs_are_for_the_default_model() -> None:
    embedder = LocalEmbedder()
    model_ids = {str(read_manifest(path)["model_id"]) for path in PACKAGED_PACKS_DIR.glob("*.npz")}
    assert embedder.model_id in model_ids  # documents and text fields, cut at MiniLM's 256 tokens
    assert embedder.with_max_tokens(64).model_id in model_ids  # names, as the loader cuts them


def test_packaged_name_vectors_equal_fresh_minilm_vectors() -> None:
    """Real HPO names, embedded now, against what the packaged pack holds for them."""
    from grasp_agent.skb.hpo import HpoSource

    names = [record.name for record in itertools.islice(HpoSource().nodes(), 0, 40_000, 997)]
    embedder = LocalEmbedder().with_max_tokens(64)
    packed = PackShelf(PACKAGED_PACKS_DIR).lookup(embedder.model_id, names)
    assert len(packed) == len(set(names)) >= 30
    fresh = embedder.embed_texts(names)
    cosines = [float(packed[name] @ vector) for name, vector in zip(names, fresh, strict=True)]
    assert min(cosines) >= MIN_COSINE
