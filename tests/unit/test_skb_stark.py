"""STaRK sources and the torch-free .pt/.pkl reader, on tiny SKBs in stark_qa's exact on-disk format.

The committed fixtures (tests/fixtures/, written once with real torch, see the README there) run without
torch; the tests marked by `importorskip("torch")` rebuild them with torch.save and compare.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import shutil
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from grasp_agent.errors import SourceFormatError
from grasp_agent.skb.stark import StarkSource, node_name_and_text, stark_label, stark_relation
from grasp_agent.skb.torch_pickle import TensorSpec, load_pickle_file, load_torch_file, peek_torch_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
STARK = FIXTURES / "stark"
TENSORS = FIXTURES / "torch_pickle"
TORCH_REASON = "the [train] extra installs torch, used to write the fixture in STaRK's exact format"


def _copy(dataset: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(STARK / dataset, tmp_path / dataset))


def _rewrite_storage(path: Path, transform: Callable[[bytes], bytes]) -> None:
    """Replace the bytes of the (single) storage in a torch.save zip: a bad value with no torch needed."""
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    (storage,) = [name for name in entries if "/data/" in name and not name.endswith(".pkl")]
    entries[storage] = transform(entries[storage])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def _set_first(value: int) -> Callable[[bytes], bytes]:
    def transform(data: bytes) -> bytes:
        array = np.frombuffer(data, dtype="<i8").copy()
        array[0] = value
        return array.tobytes()

    return transform


class _Hostile:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


# --- the reader ---


def test_reader_rebuilds_every_dtype_offset_and_stride() -> None:
    tensors = load_torch_file(TENSORS / "tensors.pt")
    assert isinstance(tensors, dict)
    assert tensors["edge_index"].dtype == np.int64 and tensors["edge_index"].tolist() == [[0, 1, 2], [1, 2, 0]]
    assert tensors["emb"].dtype == np.float32 and tensors["emb"].tolist() == [[0.5, -1.0, 2.0], [3.25, 0.0, -0.125]]
    assert tensors["grid"].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert tensors["view"].tolist() == [[1, 5, 9], [2, 6, 10]]  # grid[:, 1:3].t(): offset 1, stride (1, 4)
    assert tensors["half"].dtype == np.float16 and tensors["half"].tolist() == [1.5, -2.0]
    assert tensors["bf16"].dtype == np.float32 and tensors["bf16"].tolist() == [1.5, -2.25]
    assert tensors["flags"].dtype == np.bool_ and tensors["flags"].tolist() == [True, False, True]
    assert tensors["scalar"].shape == () and int(tensors["scalar"]) == 7
    assert tensors["empty"].shape == (0, 2)


def test_reader_reads_embedding_dicts_and_peeks_shapes() -> None:
    embeddings = load_torch_file(TENSORS / "emb_dict.pt")
    assert isinstance(embeddings, dict)
    assert {key: value.tolist() for key, value in embeddings.items()} == {7: [[1.0, 2.0]], 9: [[3.0, 4.0]]}
    shapes = peek_torch_file(TENSORS / "tensors.pt")
    assert isinstance(shapes, dict)
    assert shapes["view"] == TensorSpec((2, 3), "int64") and shapes["bf16"] == TensorSpec((2,), "float32")


def test_reader_refuses_the_legacy_format_and_garbage(tmp_path: Path) -> None:
    with pytest.raises(SourceFormatError, match=r"legacy\.pt: not a torch\.save zip archive"):
        load_torch_file(TENSORS / "legacy.pt")
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a zip")
    with pytest.raises(SourceFormatError, match=r"garbage\.pt: not a torch\.save zip archive"):
        load_torch_file(garbage)


def test_reader_checks_storage_sizes(tmp_path: Path) -> None:
    path = Path(shutil.copy(STARK / "mag" / "processed" / "node_types.pt", tmp_path / "node_types.pt"))
    _rewrite_storage(path, lambda data: data[:-8])
    with pytest.raises(
        SourceFormatError, match=r"node_types\.pt: storage .* has 40 bytes; LongStorage of 6 elements needs 48"
    ):
        load_torch_file(path)


def test_restricted_unpickler_refuses_code_execution(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = tmp_path / "node_info.pkl"
    hostile.write_bytes(pickle.dumps({0: _Hostile(marker)}))
    with pytest.raises(SourceFormatError, match=r"node_info\.pkl: refused to unpickle global (posix|nt)\.system"):
        load_pickle_file(hostile)
    archive = tmp_path / "edge_index.pt"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("edge_index/data.pkl", pickle.dumps(_Hostile(marker), protocol=2))
    with pytest.raises(SourceFormatError, match=r"edge_index\.pt: refused to unpickle global"):
        load_torch_file(archive)
    assert not marker.exists()


def test_pickles_from_numpy_1_and_2_load_with_numpy_scalars(tmp_path: Path) -> None:
    data = {np.int64(0): {"name": np.str_("SCN1A"), "weight": np.float64(1.5), "ids": np.arange(3), "tags": ["a"]}}
    for numpy_module in (b"numpy._core", b"numpy.core"):  # numpy 1.x pickles name numpy.core
        path = tmp_path / "info.pkl"
        path.write_bytes(pickle.dumps(data, protocol=2).replace(b"numpy._core", numpy_module))
        loaded = load_pickle_file(path)
        assert isinstance(loaded, dict)
        assert loaded[0]["name"] == "SCN1A" and loaded[0]["weight"] == 1.5 and loaded[0]["ids"].tolist() == [0, 1, 2]


def test_a_truncated_pickle_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "node_info.pkl"
    path.write_bytes(pickle.dumps({0: {"name": "x"}})[:-5])
    with pytest.raises(SourceFormatError, match=r"node_info\.pkl: corrupt pickle"):
        load_pickle_file(path)


# --- names ---


@pytest.mark.parametrize(
    ("stark", "label"),
    [
        ("disease", "Disease"),
        ("gene/protein", "GeneProtein"),
        ("effect/phenotype", "EffectPhenotype"),
        ("molecular_function", "MolecularFunction"),
        ("field_of_study", "FieldOfStudy"),
        ("product", "Product"),
    ],
)
def test_labels_are_upper_camel_case(stark: str, label: str) -> None:
    assert stark_label(stark) == label


@pytest.mark.parametrize(
    ("stark", "relation"),
    [
        ("phenotype present", "PHENOTYPE_PRESENT"),
        ("off-label use", "OFF_LABEL_USE"),
        ("parent-child", "PARENT_CHILD"),
        ("author___writes___paper", "WRITES"),
        ("paper___has_topic___field_of_study", "HAS_TOPIC"),
        ("also_buy", "ALSO_BUY"),
    ],
)
def test_relations_are_upper_snake_case(stark: str, relation: str) -> None:
    assert stark_relation(stark) == relation


# --- prime ---


def test_prime_nodes_keep_stark_ids_names_and_detail_text() -> None:
    source = StarkSource(STARK / "prime", "prime")
    nodes = list(source.nodes())
    assert [node.id for node in nodes] == list(range(9)) and all(type(node.id) is int for node in nodes)
    assert [(node.label, node.name) for node in nodes[:4]] == [
        ("Disease", "Dravet syndrome"),
        ("GeneProtein", "SCN1A"),
        ("GeneProtein", "SCN2A"),
        ("Drug", "Stiripentol"),
    ]
    disease, gene, _, drug = nodes[:4]
    # NaN and '' dropped; *_id keys left out as stark_qa's get_doc_info does.
    assert disease.properties == {
        "source": "MONDO_grouped",
        "mondo_name": "Dravet syndrome",
        "mondo_definition": "A severe epileptic encephalopathy beginning in infancy.",
        "umls_description": "Severe myoclonic epilepsy of infancy.",
    }
    assert gene.properties["detail_name"] == "sodium voltage-gated channel alpha subunit 1"  # `name` is the node name
    assert gene.properties["alias"] == ["FEB3", "GEFSP2", "SMEI"]
    assert gene.properties["interpro"] == ["Ion transport domain"]
    assert gene.properties["generif"] == "Mutations cause Dravet syndrome.; Linked to febrile seizures."
    assert gene.properties["genomic_pos"] == "chr: 2; start: 165984641; end: 166149161"
    assert drug.properties == {
        "source": "DrugBank",
        "description": "An antiepileptic agent.",
        "half_life": "13 hours",
        "molecular_weight": "234.29",
        "group": "approved",
    }
    assert nodes[5].properties["display_name"] == "Phase 0 - rapid depolarisation"
    schema = source.schema()
    for node in nodes:  # the loader refuses properties the schema does not list
        assert set(node.properties) <= set(schema.node_type(node.label).text_fields)
    assert schema.node_type("GeneProtein").text_fields[:3] == ("source", "detail_name", "alias")


def test_prime_edges_keep_direction_and_parallel_types() -> None:
    source = StarkSource(STARK / "prime" / "processed", "prime")  # the exact folder works too
    edges = list(source.edges())
    assert Counter(edge.type for edge in edges) == {
        "PPI": 2,
        "ASSOCIATED_WITH": 2,
        "INDICATION": 2,
        "OFF_LABEL_USE": 1,
        "PHENOTYPE_PRESENT": 2,
        "PARENT_CHILD": 2,
        "EXPRESSION_PRESENT": 1,
        "INTERACTS_WITH": 2,
    }
    drug_to_disease = [
        (e.type, e.source_id, e.target_id) for e in edges if (e.source_label, e.target_label) == ("Drug", "Disease")
    ]
    assert drug_to_disease == [("INDICATION", 3, 0), ("OFF_LABEL_USE", 3, 0)]  # not coalesced
    pairs = {rel.type: [(p.source, p.target) for p in rel.pairs] for rel in source.schema().relation_types}
    assert pairs["INDICATION"] == [("Disease", "Drug"), ("Drug", "Disease")]
    assert pairs["INTERACTS_WITH"] == [("MolecularFunction", "GeneProtein"), ("Pathway", "GeneProtein")]
    assert "CARRIER" not in pairs  # no edge of that type in the data
    assert source.size_hint() == (9, 14) and source.skipped() == {}
    assert list(source.edges()) == edges  # deterministic re-iteration (resumable loads)


# --- mag ---


def test_mag_nodes_use_display_names_titles_and_drop_minus_one() -> None:
    source = StarkSource(STARK / "mag", "mag")
    nodes = list(source.nodes())
    assert [(n.label, n.name) for n in nodes] == [
        ("Author", "Ada Lovelace"),
        ("Author", ""),
        ("Institution", "University of London"),
        ("FieldOfStudy", "Mathematics"),
        ("Paper", "Sketch of the Analytical Engine"),
        ("Paper", "On Bernoulli numbers"),
    ]
    assert nodes[0].properties == {"paper_count": 3, "citation_count": 120}
    assert nodes[1].properties == {} and nodes[2].properties == {"paper_count": 50000}
    assert nodes[4].properties == {
        "abstract": "Notes on Babbage's engine.",
        "publication_date": "1843-01-01",
        "venue": "Scientific Memoirs",
    }
    assert nodes[5].properties == {"venue": "Taylor's Memoirs"}  # NaN abstract and -1 date dropped
    assert source.schema().node_type("Paper").text_fields == ("abstract", "publication_date", "venue")


def test_mag_edge_types_follow_their_endpoints_and_unfixable_ones_are_skipped() -> None:
    source = StarkSource(STARK / "mag", "mag")
    edges = list(source.edges())
    # The CITES id on an Author->Paper edge is relabelled WRITES (the only relation joining those types);
    # a Paper->Author edge matches no declared relation and is skipped. Both are counted.
    assert Counter(edge.type for edge in edges) == {"AFFILIATED_WITH": 2, "CITES": 1, "HAS_TOPIC": 2, "WRITES": 4}
    assert all((e.source_label, e.target_label) == ("Author", "Paper") for e in edges if e.type == "WRITES")
    assert source.skipped() == {
        "relabelled CITES -> WRITES (type id contradicted the endpoints)": 1,
        "WRITES edge (type id 3) between Paper->Author, not the declared Author->Paper": 1,
    }
    pairs = {rel.type: [(p.source, p.target) for p in rel.pairs] for rel in source.schema().relation_types}
    assert pairs == {
        "AFFILIATED_WITH": [("Author", "Institution")],
        "CITES": [("Paper", "Paper")],
        "HAS_TOPIC": [("Paper", "FieldOfStudy")],
        "WRITES": [("Author", "Paper")],
    }
    assert source.size_hint() == (6, 10)


# --- amazon ---


def test_amazon_is_found_in_its_cache_folder_with_bounded_product_text() -> None:
    source = StarkSource(STARK / "amazon", "amazon")
    nodes = list(source.nodes())
    assert [(n.label, n.name) for n in nodes[3:]] == [
        ("Brand", "Salomon"),
        ("Category", "running"),
        ("Category", "socks"),
        ("Color", "black"),
    ]
    assert nodes[0].properties == {
        "brand": "Salomon",
        "dimensions": "12 x 8 x 5 inches",
        "weight": "1.2 pounds",
        "description": "Light shoe. For trails.",
        "features": ["Grippy outsole"],
        "categories": ["running"],
        "reviews": ["Great: Best shoe.", "Ok: Fine."],  # most votes first
        "qa": ["Q: Waterproof? A: No."],
    }
    assert Counter(e.type for e in source.edges()) == {
        "ALSO_BUY": 1,
        "ALSO_VIEW": 2,
        "HAS_BRAND": 2,
        "HAS_CATEGORY": 3,
        "HAS_COLOR": 1,
    }


def test_amazon_reviews_and_answers_are_capped() -> None:
    info = {
        "title": "Tent",
        "review": [{"summary": f"s{i}", "reviewText": "x" * 5000, "vote": str(i)} for i in range(40)],
        "qa": [{"question": f"q{i}", "answer": "a"} for i in range(40)],
    }
    name, properties = node_name_and_text("amazon", "product", info)
    assert name == "Tent" and isinstance(properties["reviews"], list) and isinstance(properties["qa"], list)
    reviews, answers = [str(r) for r in properties["reviews"]], [str(a) for a in properties["qa"]]
    assert len(reviews) == 25 and reviews[0].startswith("s39: ") and max(len(r) for r in reviews) == 2000
    assert len(answers) == 25 and answers[0] == "Q: q0 A: a"


# --- bad input ---


def test_missing_files_and_folders_are_named(tmp_path: Path) -> None:
    root = _copy("prime", tmp_path)
    (root / "processed" / "edge_types.pt").unlink()
    with pytest.raises(SourceFormatError, match=r"edge_types\.pt: missing; STaRK prime needs"):
        StarkSource(root, "prime")
    with pytest.raises(SourceFormatError, match=r"no node_info\.pkl in"):
        StarkSource(tmp_path / "nowhere", "mag")


def test_corrupt_tensors_name_the_file(tmp_path: Path) -> None:
    root = _copy("prime", tmp_path)
    (root / "processed" / "edge_index.pt").write_bytes(b"\x00" * 64)
    with pytest.raises(SourceFormatError, match=r"edge_index\.pt: not a torch\.save zip archive"):
        StarkSource(root, "prime").schema()


def test_node_id_out_of_range_is_an_error(tmp_path: Path) -> None:
    root = _copy("mag", tmp_path)
    _rewrite_storage(root / "processed" / "edge_index.pt", _set_first(99))
    with pytest.raises(SourceFormatError, match=r"edge_index\.pt: node id at flat position 0 is 99; allowed: 0\.\.5"):
        list(StarkSource(root, "mag").edges())


def test_unknown_type_ids_are_errors(tmp_path: Path) -> None:
    root = _copy("prime", tmp_path)
    _rewrite_storage(root / "processed" / "edge_types.pt", _set_first(42))
    with pytest.raises(
        SourceFormatError, match=r"edge_types\.pt: edge type id at flat position 0 is 42; allowed: \[0, 1,"
    ):
        StarkSource(root, "prime").schema()
    root = _copy("mag", tmp_path / "second")
    _rewrite_storage(root / "processed" / "node_types.pt", _set_first(7))
    with pytest.raises(
        SourceFormatError, match=r"node_types\.pt: node type id at flat position 0 is 7; allowed: \[0, 1, 2, 3\]"
    ):
        list(StarkSource(root, "mag").nodes())


def test_tensor_shape_mismatch_is_an_error(tmp_path: Path) -> None:
    root = _copy("mag", tmp_path)
    shutil.copy(root / "processed" / "node_types.pt", root / "processed" / "edge_types.pt")  # 6 "edges" for 10 columns
    with pytest.raises(SourceFormatError, match=r"edge_index\.pt: shape \(2, 10\); edge_types\.pt has 6 edges"):
        StarkSource(root, "mag").schema()


def test_node_info_must_cover_every_node(tmp_path: Path) -> None:
    root = _copy("mag", tmp_path)
    info = root / "processed" / "node_info.pkl"
    info.write_bytes(pickle.dumps({0: {"DisplayName": "only one"}}))
    with pytest.raises(
        SourceFormatError, match=r"node_info\.pkl: expected a dict with one entry per node \(6\), got 1"
    ):
        StarkSource(root, "mag").schema()


def test_fingerprint_follows_the_files(tmp_path: Path) -> None:
    root = _copy("mag", tmp_path)
    before = StarkSource(root, "mag").fingerprint()
    assert StarkSource(root / "processed", "mag").fingerprint() == before
    os.utime(root / "processed" / "edge_types.pt", ns=(1, 1))
    assert StarkSource(root, "mag").fingerprint() != before


# --- with torch: the committed fixtures are what torch.save writes today ---


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_stark_fixtures", STARK / "build_stark_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("dataset", ["prime", "mag", "amazon"])
def test_fresh_torch_save_reads_like_the_committed_fixture(dataset: str, tmp_path: Path) -> None:
    pytest.importorskip("torch", reason=TORCH_REASON)
    _builder().__getattribute__(f"write_{dataset}")(
        tmp_path / "processed" / ("cache/brand-category-color" if dataset == "amazon" else "")
    )
    fresh, committed = StarkSource(tmp_path, dataset), StarkSource(STARK / dataset, dataset)  # type: ignore[arg-type]
    assert fresh.schema() == committed.schema()
    assert list(fresh.nodes()) == list(committed.nodes())
    assert list(fresh.edges()) == list(committed.edges())
    assert fresh.skipped() == committed.skipped() and fresh.size_hint() == committed.size_hint()


def test_reader_matches_torch_for_every_dtype(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=TORCH_REASON)
    base = torch.arange(24).reshape(2, 3, 4)
    cases = {
        str(dtype): base.to(dtype)
        for dtype in (
            torch.int64,
            torch.int32,
            torch.int16,
            torch.int8,
            torch.uint8,
            torch.float64,
            torch.float32,
            torch.float16,
            torch.bool,
        )
    }
    cases["permuted"] = base.permute(2, 0, 1)[1:]
    torch.save(cases, tmp_path / "cases.pt")
    loaded = load_torch_file(tmp_path / "cases.pt")
    assert isinstance(loaded, dict)
    for key, tensor in cases.items():
        assert loaded[key].dtype == tensor.numpy().dtype and np.array_equal(loaded[key], tensor.numpy()), key
