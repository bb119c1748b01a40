"""Path-Bank packs without Neo4j: the .npz round trip is exact and pickle-free, inconsistent packs are refused,
a pack fits only its SKB, embedder and data, and the packaged HPO bank is readable and installed."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.adapath.bank_pack import (
    PACK_FORMAT,
    PACKAGED_BANKS_DIR,
    BankPack,
    BankPackError,
    PackedMetaPath,
    PackedQuery,
    PackedUse,
    PackManifest,
    content_digest,
    identity_mismatch,
    packaged_pack,
    read_pack_manifest,
)
from grasp_agent.adapath.bank_store import BankIdentity

GENE_PATH = PackedMetaPath(
    "(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)",
    1,
    "Phenotype",
    "Gene",
    ("Phenotype", "Gene"),
    ("ASSOCIATED_WITH",),
    (False,),
)
DISEASE_PATH = PackedMetaPath(
    "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)",
    1,
    "Phenotype",
    "Disease",
    ("Phenotype", "Disease"),
    ("HAS_PHENOTYPE",),
    (False,),
)
IDENTITY = BankIdentity("hpo", "fp-1", "local:all-MiniLM-L6-v2:max256")


def sample_pack(dimension: int = 8) -> BankPack:
    queries = (
        PackedQuery(
            "q1",
            "Which genes are associated with epileptic spasm? ünïcode",
            ("HP:0011097",),
            ("NCBIGene:4905",),
            120,
            3,
            (PackedUse(0, 1.2345678901234567, 2), PackedUse(1, 2.5, 1)),
            1_764_892_800_123_456_789,
        ),
        PackedQuery("q2", "no path here", ("HP:0011097",), ("OMIM:619340",), 0, 0, ()),
    )
    vectors = np.random.default_rng(0).standard_normal((2, dimension)).astype(np.float32)
    manifest = PackManifest(
        skb="hpo",
        fingerprint="fp-1",
        embedder=IDENTITY.embedder,
        content="c" * 64,
        config={"corridor_size": 60, "paths_per_answer": 2},
        dimension=dimension,
        queries=2,
        meta_paths=2,
        uses=2,
        source="unit test",
    )
    return BankPack(manifest, (GENE_PATH, DISEASE_PATH), queries, vectors)


def test_round_trip_is_exact(tmp_path: Path) -> None:
    pack = sample_pack()
    pack.save(tmp_path / "bank.npz")
    loaded = BankPack.load(tmp_path / "bank.npz")
    assert loaded.manifest == pack.manifest and loaded.meta_paths == pack.meta_paths
    assert loaded.queries == pack.queries  # the costs' floats too (JSON keeps repr's digits)
    assert loaded.vectors.dtype == np.float32 and np.array_equal(loaded.vectors, pack.vectors)
    assert read_pack_manifest(tmp_path / "bank.npz") == pack.manifest


def test_the_file_is_pickle_free_json_and_float32(tmp_path: Path) -> None:
    sample_pack().save(tmp_path / "bank.npz")
    with zipfile.ZipFile(tmp_path / "bank.npz") as archive:
        assert sorted(archive.namelist()) == ["manifest.npy", "meta_paths.npy", "queries.npy", "vectors.npy"]
    with np.load(tmp_path / "bank.npz", allow_pickle=False) as data:
        assert data["vectors"].dtype == np.float32 and data["manifest"].dtype == np.uint8
        manifest = json.loads(bytes(data["manifest"]).decode())
        queries = json.loads(bytes(data["queries"]).decode())
    assert manifest["format"] == PACK_FORMAT and manifest["content"] == "c" * 64
    assert queries[0]["uses"][0] == {"meta_path": 0, "cost": 1.2345678901234567, "paths": 2}


def test_write_parameters_are_what_bank_store_sends() -> None:
    pack = sample_pack()
    params = pack.write_parameters(0)
    assert set(params) == {
        "id", "text", "topicIds", "answerIds", "corridorNodes", "pathCount", "written", "vector", "metaPaths"
    }  # fmt: skip
    assert params["vector"] == [float(v) for v in pack.vectors[0]] and params["pathCount"] == 3
    assert params["written"] == 1_764_892_800_123_456_789 and pack.write_parameters(1)["written"] is None
    # The keys of bank_store.meta_path_rows: write_query reads exactly these.
    assert params["metaPaths"][0] == {
        "signature": GENE_PATH.signature,
        "hops": 1,
        "startLabel": "Phenotype",
        "answerLabel": "Gene",
        "labels": ["Phenotype", "Gene"],
        "relations": ["ASSOCIATED_WITH"],
        "outgoing": [False],
        "cost": 1.2345678901234567,
        "paths": 2,
    }
    assert pack.write_parameters(1)["metaPaths"] == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: replace(p, vectors=p.vectors.astype(np.float64)), "vectors float64"),
        (lambda p: replace(p, vectors=p.vectors[:1]), r"vectors float32 \(1, 8\)"),
        (lambda p: replace(p, vectors=np.full_like(p.vectors, np.nan)), "NaN"),
        (lambda p: replace(p, manifest=replace(p.manifest, uses=3)), "the manifest says"),
        (lambda p: replace(p, queries=(p.queries[0], replace(p.queries[1], id="q1"))), "query ids repeat"),
        (lambda p: replace(p, meta_paths=(GENE_PATH, GENE_PATH)), "signatures repeat"),
        (
            lambda p: replace(p, queries=(replace(p.queries[0], uses=(PackedUse(5, 1.0, 1),) * 2), p.queries[1])),
            "outside 0..1",
        ),
    ],
)
def test_inconsistent_packs_are_refused(change: object, message: str) -> None:
    with pytest.raises(BankPackError, match=message):
        change(sample_pack())  # type: ignore[operator]


def test_a_file_that_is_not_a_bank_pack_is_refused(tmp_path: Path) -> None:
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(BankPackError, match="could not be read"):
        BankPack.load(tmp_path / "text.npz")
    with (tmp_path / "other.npz").open("wb") as stream:
        np.savez(stream, manifest=np.frombuffer(json.dumps({"format": "grasp-vector-pack/1 int8"}).encode(), np.uint8))
    with pytest.raises(BankPackError, match="not a Path-Bank pack: format 'grasp-vector-pack/1 int8'"):
        read_pack_manifest(tmp_path / "other.npz")


def test_a_pack_fits_only_its_skb_embedder_and_data() -> None:
    manifest = sample_pack().manifest
    assert identity_mismatch(manifest, IDENTITY, None) is None
    # Another load of the same data (an install resets the files' timestamps): the content decides.
    reloaded = replace(IDENTITY, fingerprint="fp-2")
    assert identity_mismatch(manifest, reloaded, "c" * 64) is None
    refused = identity_mismatch(manifest, reloaded, "d" * 64)
    assert refused is not None and "other data" in refused and "load fp-1" in refused and "load fp-2" in refused
    vouched_for_nothing = replace(manifest, content=None)
    assert identity_mismatch(vouched_for_nothing, reloaded, None) is not None
    other_skb = identity_mismatch(manifest, replace(IDENTITY, skb="prime"), "c" * 64)
    assert other_skb is not None and "not of the loaded 'prime'" in other_skb
    other_model = identity_mismatch(manifest, replace(IDENTITY, embedder="local:all-mpnet-base-v2:max384"), None)
    assert other_model is not None and "configured embedder is 'local:all-mpnet-base-v2:max384'" in other_model


def test_content_digest_sees_ids_and_relation_counts_not_order() -> None:
    base = content_digest({"Gene": ["b", "a"], "Disease": ["x"]}, {"ASSOCIATED_WITH": 3})
    assert base == content_digest({"Disease": ["x"], "Gene": ["a", "b"]}, {"ASSOCIATED_WITH": 3})
    assert base != content_digest({"Gene": ["a", "b", "c"], "Disease": ["x"]}, {"ASSOCIATED_WITH": 3})
    assert base != content_digest({"Gene": ["a", "b"], "Disease": ["x"]}, {"ASSOCIATED_WITH": 4})
    assert base != content_digest({"Gene": ["a", "b"], "Disease": []}, {"ASSOCIATED_WITH": 3})


def test_the_packaged_hpo_bank_is_shipped_and_consistent() -> None:
    path = packaged_pack("hpo", IDENTITY.embedder)
    assert path is not None and path.parent == PACKAGED_BANKS_DIR
    assert path.stat().st_size < 2 * 2**20  # small beside the vector packs
    pack = BankPack.load(path)
    manifest = pack.manifest
    assert (manifest.skb, manifest.embedder, manifest.dimension) == ("hpo", IDENTITY.embedder, 384)
    assert manifest.content is not None and manifest.queries >= 400 and manifest.meta_paths >= 10
    norms = np.linalg.norm(pack.vectors, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-3)  # unit query embeddings, as the embedder gives them
    assert packaged_pack("hpo", "local:all-mpnet-base-v2:max384") is None
