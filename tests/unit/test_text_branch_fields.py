"""Text branch fields, per-field BM25 and the uniform-weight combination, on a hand-made ten-node SKB.

Phenotypes P1-P6 and diseases D1-D4; IS_A between phenotypes, HAS_PHENOTYPE from diseases to phenotypes.
Degrees (relationships of any type): P1 3, P2 2, P3 1, P4 2, P5 3, P6 2, D1 2, D2 2, D3 1, D4 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.errors import SchemaError
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord
from grasp_agent.text_branch.bm25_index import Bm25Config, LexicalIndex, index_directory, open_lexical_index
from grasp_agent.text_branch.fields import (
    FieldCorpus,
    NodeFields,
    ScoredNodes,
    TextBranchError,
    field_specs,
    fields_from_records,
)
from grasp_agent.text_branch.multifield import FieldKey, combine_fields, max_normalize, uniform_weights

SCHEMA = SkbSchema(
    name="toy",
    node_types=(
        NodeType(label="Phenotype", text_fields=("definition", "synonyms")),
        NodeType(label="Disease", text_fields=("source",)),
    ),
    relation_types=(
        RelationType(type="IS_A", pairs=(RelationPair(source="Phenotype", target="Phenotype"),)),
        RelationType(type="HAS_PHENOTYPE", pairs=(RelationPair(source="Disease", target="Phenotype"),)),
    ),
)
NODES = [
    NodeRecord(
        "Phenotype",
        "P1",
        "Seizure",
        {
            "definition": "An intermittent abnormality of nervous system physiology",
            "synonyms": ["Fits", "Epileptic attack"],
        },
    ),
    NodeRecord(
        "Phenotype",
        "P2",
        "Focal seizure",
        {"definition": "A seizure that starts in one brain hemisphere", "synonyms": ["Partial seizure"]},
    ),
    NodeRecord(
        "Phenotype",
        "P3",
        "Abnormality of the nervous system",
        {"definition": "Any abnormality of the brain or the nerves"},
    ),
    NodeRecord(
        "Phenotype", "P4", "Hearing loss", {"definition": "Reduced ability to perceive sound", "synonyms": ["Deafness"]}
    ),
    NodeRecord(
        "Phenotype", "P5", "Cataract", {"definition": "Clouding of the lens of the eye", "synonyms": ["Lens opacity"]}
    ),
    NodeRecord("Phenotype", "P6", "Abnormality of the eye", {"definition": "Any abnormality of the visual system"}),
    NodeRecord("Disease", "D1", "Dravet syndrome", {"source": "OMIM"}),
    NodeRecord("Disease", "D2", "Usher syndrome", {"source": "OMIM"}),
    NodeRecord("Disease", "D3", "Congenital cataract", {"source": "ORPHA"}),
    NodeRecord("Disease", "D4", "Alport syndrome", {"source": "ORPHA"}),
]
EDGES = [
    EdgeRecord("Phenotype", "P2", "IS_A", "Phenotype", "P1"),
    EdgeRecord("Phenotype", "P1", "IS_A", "Phenotype", "P3"),
    EdgeRecord("Phenotype", "P5", "IS_A", "Phenotype", "P6"),
    EdgeRecord("Disease", "D1", "HAS_PHENOTYPE", "Phenotype", "P1"),
    EdgeRecord("Disease", "D1", "HAS_PHENOTYPE", "Phenotype", "P2"),
    EdgeRecord("Disease", "D2", "HAS_PHENOTYPE", "Phenotype", "P4"),
    EdgeRecord("Disease", "D2", "HAS_PHENOTYPE", "Phenotype", "P6"),
    EdgeRecord("Disease", "D3", "HAS_PHENOTYPE", "Phenotype", "P5"),
    EdgeRecord("Disease", "D4", "HAS_PHENOTYPE", "Phenotype", "P4"),
    EdgeRecord("Disease", "D4", "HAS_PHENOTYPE", "Phenotype", "P5"),
]
NO_STEM = Bm25Config(stemmer=None)  # the same tests without PyStemmer's help


def toy_corpus(max_names: int = 50) -> FieldCorpus:
    return FieldCorpus.from_schema_nodes(SCHEMA, fields_from_records(SCHEMA, NODES, EDGES, max_names=max_names))


@pytest.fixture(scope="module")
def index() -> LexicalIndex:
    return LexicalIndex.build(toy_corpus())


def row(corpus: FieldCorpus, node_id: str) -> int:
    return corpus.ids.index(node_id)


# ---- fields ---------------------------------------------------------------------------------------------
def test_fields_are_name_then_text_fields_then_relations() -> None:
    assert [(spec.name, spec.kind) for spec in field_specs(SCHEMA)] == [
        ("name", "attribute"),
        ("definition", "attribute"),
        ("synonyms", "attribute"),
        ("source", "attribute"),
        ("IS_A", "relation"),
        ("HAS_PHENOTYPE", "relation"),
    ]


def test_attribute_fields_hold_the_node_text_and_other_types_fields_are_empty() -> None:
    corpus = toy_corpus()
    p1, d1 = row(corpus, "P1"), row(corpus, "D1")
    assert corpus.fields["synonyms"][p1] == "Fits; Epileptic attack"
    assert corpus.fields["source"][p1] == ""
    assert corpus.fields["definition"][d1] == "" and corpus.fields["IS_A"][d1] == ""
    assert corpus.labels[d1] == "Disease" and corpus.node_types == ("Phenotype", "Disease")


def test_relation_fields_join_both_directions_most_specific_first_and_are_bounded() -> None:
    corpus = toy_corpus()
    # P1's IS_A neighbours: parent P3 (degree 1) before child P2 (degree 2), whatever the direction.
    assert corpus.fields["IS_A"][row(corpus, "P1")] == "Abnormality of the nervous system; Focal seizure"
    # P5 is reached from D3 (degree 1) and D4 (degree 2).
    assert corpus.fields["HAS_PHENOTYPE"][row(corpus, "P5")] == "Congenital cataract; Alport syndrome"
    assert corpus.fields["HAS_PHENOTYPE"][row(corpus, "D2")] == "Abnormality of the eye; Hearing loss"
    bounded = toy_corpus(max_names=1)
    assert bounded.fields["IS_A"][row(bounded, "P1")] == "Abnormality of the nervous system"


def test_documents_are_rendered_like_the_loader_renders_them() -> None:
    corpus = toy_corpus()
    assert corpus.documents[row(corpus, "D2")].splitlines() == [
        "Disease: Usher syndrome",
        "source: OMIM",
        "HAS_PHENOTYPE -> Phenotype (2): Abnormality of the eye, Hearing loss",
    ]


def test_field_names_must_not_collide() -> None:
    clash = SkbSchema(
        name="clash",
        node_types=(NodeType(label="A", text_fields=("LINKS",)),),
        relation_types=(RelationType(type="LINKS", pairs=(RelationPair(source="A", target="A"),)),),
    )
    with pytest.raises(SchemaError, match="relation type 'LINKS' has the name of a text field"):
        field_specs(clash)
    with pytest.raises(ValueError, match=r"text fields \['doc'\] of A are reserved"):  # the schema refuses it first
        NodeType(label="A", text_fields=("doc",))


def test_corpus_rejects_duplicate_ids_and_unknown_fields() -> None:
    with pytest.raises(TextBranchError, match="repeated: \\['x'\\]"):
        FieldCorpus.from_nodes([NodeFields("x", "A", {}), NodeFields("x", "B", {})], ["name"])
    with pytest.raises(TextBranchError, match="has fields \\['title'\\]"):
        FieldCorpus.from_nodes([NodeFields("x", "A", {"title": "t"})], ["name"])


def test_reader_statements_take_values_as_parameters_and_identifiers_backticked() -> None:
    statements = load_statements("text_branch.cypher")
    page = statements["field_page"]
    assert all(parameter in page for parameter in ("$after", "$fields", "$limit"))
    assert "$ids" in statements["relation_names"] and "$limit" in statements["relation_names"]
    query = fill_identifiers(statements["relation_names"], label="Phenotype", type="IS_A")
    assert "(n:`Phenotype` {id: node_id})" in query and "-[:`IS_A`]-(m)" in query


# ---- BM25 per field -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "query", "first"),
    [
        ("name", "cataract", "P5"),  # "Cataract" (1 token) beats "Congenital cataract" (2 tokens)
        ("definition", "clouding of the lens", "P5"),
        ("synonyms", "deafness", "P4"),
        ("source", "omim", "D1"),  # D1 and D2 tie; ties keep corpus order
        ("IS_A", "focal seizure", "P1"),  # P1's IS_A field names "Focal seizure"; P3's only "Seizure"
        ("HAS_PHENOTYPE", "seizure", "D1"),
    ],
)
def test_each_field_ranks_the_hand_picked_node_first(index: LexicalIndex, field: str, query: str, first: str) -> None:
    hits = index.search_field(field, query)
    assert hits.ids[0] == first and hits.source == field
    assert list(hits.scores) == sorted(hits.scores, reverse=True) and min(hits.scores) > 0


def test_stemming_matches_plural_query_words(index: LexicalIndex) -> None:
    assert index.search_field("name", "seizures").ids[0] == "P1"
    assert LexicalIndex.build(toy_corpus(), NO_STEM).search_field("name", "seizures").ids == ()


def test_only_matching_nodes_are_returned_and_k_cuts(index: LexicalIndex) -> None:
    assert set(index.search_field("name", "syndrome").ids) == {"D1", "D2", "D4"}
    assert len(index.search_field("name", "syndrome", k=2)) == 2


def test_type_filtering_keeps_only_the_target_type(index: LexicalIndex) -> None:
    assert index.search_field("name", "cataract", node_type="Disease").ids == ("D3",)
    assert index.search_field("name", "cataract", node_type="Phenotype").ids == ("P5",)
    assert all(str(node).startswith("D") for node in index.search_document("abnormality", node_type="Disease").ids)
    with pytest.raises(TextBranchError, match="unknown node type 'Gene'; known: \\['Phenotype', 'Disease'\\]"):
        index.search_field("name", "cataract", node_type="Gene")


@pytest.mark.parametrize("query", ["", "   ", "the of and", "zzzz qqqq", "a"])
def test_empty_stopword_and_unknown_queries_give_empty_results(index: LexicalIndex, query: str) -> None:
    assert all(len(hits) == 0 for hits in index.search(query).values())
    assert len(index.search_document(query)) == 0


def test_search_covers_every_field_and_unknown_fields_are_errors(index: LexicalIndex) -> None:
    assert set(index.search("seizure")) == {"name", "definition", "synonyms", "source", "IS_A", "HAS_PHENOTYPE"}
    with pytest.raises(TextBranchError, match="unknown text field 'title'"):
        index.search_field("title", "seizure")


def test_whole_document_baseline(index: LexicalIndex) -> None:
    assert index.search_document("usher syndrome hearing").ids[0] == "D2"


def test_any_nodes_score_is_the_one_its_field_ranking_gives(index: LexicalIndex) -> None:
    scored = index.score("seizure nervous abnormality", fields=["name", "definition"])
    for field in ("name", "definition"):
        everything = index.search_field(field, "seizure nervous abnormality", k=100)
        assert scored.top(100)[field] == everything and len(everything) >= 3
        assert scored.top(1)[field] == index.search_field(field, "seizure nervous abnormality", k=1)
        last = everything.ids[-1]  # below the top 1, yet scored
        assert scored.of(field, [last, everything.ids[0]]).tolist() == pytest.approx(
            [everything.scores[-1], everything.scores[0]]
        )
    assert scored.of("name", ["P4", "nowhere"]).tolist() == [0.0, 0.0]  # no query word; not in the index
    assert scored.of("definition", ["D1"]).tolist() == [0.0]  # a Disease has no definition
    phenotypes = index.score("seizure", node_type="Phenotype", fields=["name"])
    assert phenotypes.of("name", ["P1"])[0] > 0 and index.score("dravet seizure", node_type="Phenotype").of(
        "name", ["D1"]
    ).tolist() == [0.0]  # another type than asked scores nothing
    with pytest.raises(TextBranchError, match="unknown text field 'title'"):
        index.score("seizure", fields=["title"])


def test_candidates_are_scored_under_every_field_not_just_where_they_rank(index: LexicalIndex) -> None:
    """With one candidate per key, a node second in two fields used to score 0 in both: completed, its own
    scores count, and the union is ranked as the fields' full rankings would rank it."""
    from grasp_agent.text_branch.candidates import field_candidates

    keys: list[FieldKey] = [("name", "bm25"), ("definition", "bm25")]
    query = "seizure abnormality nervous system"
    few = field_candidates(keys, query, None, lexical=index, k=1)
    full = {key: index.search_field(key[0], query, k=100) for key in keys}
    for column, key in enumerate(keys):
        top = full[key].scores[0]
        own = dict(zip(full[key].ids, full[key].scores, strict=True))
        assert few.scores[:, column].tolist() == pytest.approx([own.get(node_id, 0.0) / top for node_id in few.ids])
    assert len(few.ids) == 2 and (few.scores > 0).sum() > 2  # a candidate scored beyond the key it came from


def test_a_field_without_any_text_is_searchable_and_empty() -> None:
    corpus = FieldCorpus.from_nodes(
        [NodeFields(1, "A", {"name": "alpha"}), NodeFields(2, "A", {"name": "beta"})], ["name", "note"]
    )
    built = LexicalIndex.build(corpus)
    assert built.search_field("note", "alpha").ids == ()
    assert built.search_field("name", "alpha").ids == (1,)


# ---- persistence ----------------------------------------------------------------------------------------
def test_round_trip_loads_without_reading_the_corpus_and_gives_the_same_results(tmp_path: Path) -> None:
    built = open_lexical_index(tmp_path, "toy", "fp1", toy_corpus, progress=False)

    def must_not_build() -> FieldCorpus:
        raise AssertionError("a persisted index must load without its corpus")

    loaded = open_lexical_index(tmp_path, "toy", "fp1", must_not_build, progress=False)
    assert loaded is not built and loaded.fields == built.fields
    for query in ("seizure", "cataract lens", "hearing loss"):
        assert loaded.search(query) == built.search(query)
        assert loaded.search_document(query, node_type="Disease") == built.search_document(query, node_type="Disease")
    assert (index_directory(tmp_path, "toy", "fp1") / "manifest.json").is_file()


def test_integer_ids_survive_the_round_trip(tmp_path: Path) -> None:
    corpus = FieldCorpus.from_nodes([NodeFields(7, "A", {"name": "alpha"})], ["name"])
    open_lexical_index(tmp_path, "ints", "fp", lambda: corpus, progress=False)
    assert LexicalIndex.load(index_directory(tmp_path, "ints", "fp")).search_field("name", "alpha").ids == (7,)


def test_a_new_fingerprint_or_config_rebuilds_and_old_content_goes(tmp_path: Path) -> None:
    builds: list[str] = []

    def corpus() -> FieldCorpus:
        builds.append("built")
        return toy_corpus()

    open_lexical_index(tmp_path, "toy", "fp1", corpus, progress=False)
    open_lexical_index(tmp_path, "toy", "fp1", corpus, progress=False)
    assert len(builds) == 1
    open_lexical_index(tmp_path, "toy", "fp2", corpus, progress=False)
    assert len(builds) == 2
    assert [path.name for path in (tmp_path / "toy").iterdir()] == ["fp2"]
    rebuilt = open_lexical_index(tmp_path, "toy", "fp2", corpus, config=NO_STEM, progress=False)
    assert len(builds) == 3 and rebuilt.config == NO_STEM


def test_unsafe_fingerprints_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TextBranchError, match="fingerprint '../x' cannot name a folder"):
        index_directory(tmp_path, "toy", "../x")


# ---- combination ----------------------------------------------------------------------------------------
def test_uniform_weight_combination_by_hand() -> None:
    rankings: dict[FieldKey, ScoredNodes] = {
        ("name", "bm25"): ScoredNodes("name", ("A", "B"), (4.0, 2.0)),
        ("definition", "bm25"): ScoredNodes("definition", ("B", "C"), (3.0, 1.5)),
    }
    weights = uniform_weights(["name", "definition"])
    assert weights == {("name", "bm25"): 0.5, ("definition", "bm25"): 0.5}
    # normalized: name A 1, B 0.5; definition B 1, C 0.5 -> A 0.5, B 0.75, C 0.25
    combined = combine_fields(rankings, weights)
    assert combined.ids == ("B", "A", "C")
    assert combined.scores == pytest.approx((0.75, 0.5, 0.25))
    assert combine_fields(rankings, weights, k=1).ids == ("B",)


def test_combination_of_real_fields_puts_the_node_matching_everywhere_first(index: LexicalIndex) -> None:
    query = "cataract lens"
    rankings: dict[FieldKey, ScoredNodes] = {(field, "bm25"): hits for field, hits in index.search(query).items()}
    combined = combine_fields(rankings, uniform_weights(index.fields))
    assert combined.ids[0] == "P5"  # name, definition and synonyms all match
    assert combine_fields({key: ScoredNodes(key[0]) for key in rankings}, uniform_weights(index.fields)).ids == ()


def test_combination_input_errors() -> None:
    with pytest.raises(TextBranchError, match="no ranking: \\[\\('name', 'dense'\\)\\]"):
        combine_fields({}, {("name", "dense"): 1.0})
    with pytest.raises(TextBranchError, match="non-negative"):
        combine_fields({("name", "bm25"): ScoredNodes("name")}, {("name", "bm25"): -1.0})
    with pytest.raises(TextBranchError, match="unknown scorers \\['sparse'\\]"):
        uniform_weights(["name"], ["sparse"])  # type: ignore[list-item]
    assert max_normalize(ScoredNodes("x", ("a",), (0.0,))) == {}
