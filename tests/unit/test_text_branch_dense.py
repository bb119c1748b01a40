"""Dense field scorer, candidate sets and the learned query-conditioned field weights (mFAR).

Fast tests use random unit vectors behind a table embedder and check against brute force or hand-computed
values; the slow test trains on real MiniLM embeddings of the Epileptic-spasm slice of HPO (439 nodes).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.text_branch.candidates import CandidateScores, WeightExample, weight_examples
from grasp_agent.text_branch.dense_fields import (
    DenseFieldIndex,
    dense_index_directory,
    open_dense_index,
)
from grasp_agent.text_branch.field_weights import (
    FieldWeightModel,
    TrainConfig,
    mean_reciprocal_rank,
    open_field_weights,
    train_field_weights,
)
from grasp_agent.text_branch.fields import FieldCorpus, NodeId, ScoredNodes, TextBranchError
from grasp_agent.text_branch.multifield import FieldKey, combine_fields, uniform_weights

DIM = 16
TYPES = ("Phenotype", "Disease")
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="training needs torch: pip install 'grasp-agent[train]'"
)


def unit_rows(rng: np.random.Generator, rows: int, dim: int = DIM) -> np.ndarray:
    vectors = rng.standard_normal((rows, dim))
    unit: np.ndarray = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    return unit


class TableEmbedder(GraspEmbedder):
    """Looks texts up in a table of vectors and records every text it was asked for."""

    def __init__(self, table: dict[str, np.ndarray], model: str = "table") -> None:
        super().__init__()
        self.table = table
        self.model = model
        self.calls: list[str] = []

    @property
    def model_id(self) -> str:
        return self.model

    @property
    def dimension(self) -> int:
        return DIM

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.extend(texts)
        return np.stack([self.table[text] for text in texts]).astype(np.float32)


def random_corpus(nodes: int = 120, seed: int = 0) -> tuple[FieldCorpus, TableEmbedder]:
    """Fields `title` (every node, a few texts shared), `note` (Phenotypes only) and `empty` (no node)."""
    rng = np.random.default_rng(seed)
    titles = [f"title {i % 100}" for i in range(nodes)]  # nodes 100.. repeat the titles of 0..
    notes = [f"note {i}" if i % 2 == 0 else "" for i in range(nodes)]
    labels = [TYPES[i % 2] for i in range(nodes)]
    texts = sorted(set(titles) | {note for note in notes if note})
    table = dict(zip(texts, unit_rows(rng, len(texts)), strict=True))
    corpus = FieldCorpus(
        tuple(f"n{i}" for i in range(nodes)),
        tuple(labels),
        {"title": tuple(titles), "note": tuple(notes), "empty": ("",) * nodes},
        ("",) * nodes,
        TYPES,
    )
    return corpus, TableEmbedder(table)


def brute_force(
    corpus: FieldCorpus, embedder: TableEmbedder, field: str, query: np.ndarray, node_type: str | None = None
) -> list[tuple[NodeId, float]]:
    """Every eligible node with text in `field` and its cosine (float64), best first."""
    scored = [
        (node_id, float(embedder.table[text].astype(np.float64) @ query.astype(np.float64)))
        for node_id, label, text in zip(corpus.ids, corpus.labels, corpus.fields[field], strict=True)
        if text and node_type in (None, label)
    ]
    return sorted(scored, key=lambda item: -item[1])


@pytest.fixture(scope="module")
def dense_setup() -> tuple[FieldCorpus, TableEmbedder, DenseFieldIndex]:
    corpus, embedder = random_corpus()
    return corpus, embedder, DenseFieldIndex.build(corpus, embedder)


# ---- dense field index ----------------------------------------------------------------------------------
@pytest.mark.parametrize("node_type", [None, "Disease"])
def test_top_k_is_the_brute_force_top_k(
    dense_setup: tuple[FieldCorpus, TableEmbedder, DenseFieldIndex], node_type: str | None
) -> None:
    corpus, embedder, index = dense_setup
    query = unit_rows(np.random.default_rng(1), 1)[0]
    expected = brute_force(corpus, embedder, "title", query, node_type)
    raw = index.search_field("title", query, 10, node_type=node_type, relative=False)
    assert list(raw.ids) == [node_id for node_id, _ in expected[:10]]
    assert raw.scores == pytest.approx([score for _, score in expected[:10]], abs=1e-5)
    relative = index.search_field("title", query, 10, node_type=node_type)
    floor = max(expected[10][1], 0.0)  # the best node left out
    assert relative.ids == raw.ids
    assert relative.scores == pytest.approx([score - floor for _, score in expected[:10]], abs=1e-5)


def test_type_mask_returns_only_that_type_and_all_of_it_when_k_is_large(
    dense_setup: tuple[FieldCorpus, TableEmbedder, DenseFieldIndex],
) -> None:
    corpus, embedder, index = dense_setup
    query = unit_rows(np.random.default_rng(2), 1)[0]
    found = index.search_field("note", query, 1000, node_type="Phenotype", relative=False)
    expected = brute_force(corpus, embedder, "note", query, "Phenotype")
    assert list(found.ids) == [node_id for node_id, _ in expected] and len(found) == 60
    assert index.search_field("note", query, 5, node_type="Disease") == ScoredNodes("note")  # no Disease has a note
    relative = index.search_field("note", query, 1000, node_type="Phenotype")  # nothing left out: floor 0
    assert list(relative.ids) == [node_id for node_id, score in expected if score > 0]


def test_empty_fields_are_skipped_and_each_distinct_text_is_embedded_once(
    dense_setup: tuple[FieldCorpus, TableEmbedder, DenseFieldIndex],
) -> None:
    _, embedder, index = dense_setup
    assert (index.size("title"), index.size("note"), index.size("empty")) == (120, 60, 0)
    assert len(embedder.calls) == len(set(embedder.calls)) == 100 + 60  # 100 distinct titles, 60 notes
    assert index.search(np.ones(DIM, np.float32) / 4)["empty"] == ScoredNodes("empty")


def test_batch_search_gives_what_search_gives_per_query(
    dense_setup: tuple[FieldCorpus, TableEmbedder, DenseFieldIndex],
) -> None:
    _, _, index = dense_setup
    queries = unit_rows(np.random.default_rng(3), 3)
    types = [None, "Phenotype", "Disease"]
    batch = index.batch_search(queries, 7, node_types=types)
    for found, query, kind in zip(batch, queries, types, strict=True):
        single = index.search(query, 7, node_type=kind)  # a (1, d) product may round differently from (3, d)
        assert {name: ranked.ids for name, ranked in found.items()} == {n: r.ids for n, r in single.items()}
        assert all(found[name].scores == pytest.approx(single[name].scores, abs=1e-6) for name in single)


def test_bad_queries_are_refused(dense_setup: tuple[FieldCorpus, TableEmbedder, DenseFieldIndex]) -> None:
    _, _, index = dense_setup
    query = np.ones(DIM, np.float32) / 4
    with pytest.raises(TextBranchError, match=r"shape \(16,\) or \(m, 16\).*got \(8,\)"):
        index.search(np.ones(8, np.float32), 5)
    with pytest.raises(TextBranchError, match="unknown node type 'Gene'; known: \\['Phenotype', 'Disease'\\]"):
        index.search(query, 5, node_type="Gene")
    with pytest.raises(TextBranchError, match="k must be at least 1; got 0"):
        index.search(query, 0)
    with pytest.raises(TextBranchError, match="field 'synonyms' has no dense index"):
        index.search_field("synonyms", query)


def test_saved_index_loads_memory_mapped_and_searches_the_same(
    dense_setup: tuple[FieldCorpus, TableEmbedder, DenseFieldIndex], tmp_path: Path
) -> None:
    _, _, index = dense_setup
    index.save(tmp_path)
    loaded = DenseFieldIndex.load(tmp_path)
    assert isinstance(loaded._fields["title"].vectors.base, np.memmap)
    assert (loaded.model_id, loaded.dimension, loaded.fields) == ("table", DIM, ("title", "note", "empty"))
    query = unit_rows(np.random.default_rng(4), 1)[0]
    assert loaded.search(query, 10, node_type="Phenotype") == index.search(query, 10, node_type="Phenotype")


def test_open_builds_once_then_loads_and_drops_older_contents(tmp_path: Path) -> None:
    corpus, embedder = random_corpus(nodes=20)
    builds: list[int] = []

    def make_corpus() -> FieldCorpus:
        builds.append(1)
        return corpus

    first = open_dense_index(tmp_path, "toy", "v1", make_corpus, embedder, progress=False)
    again = open_dense_index(tmp_path, "toy", "v1", make_corpus, embedder, progress=False)
    assert len(builds) == 1 and again.size("title") == first.size("title") == 20
    other_model = TableEmbedder(embedder.table, model="local:other:max64")
    open_dense_index(tmp_path, "toy", "v1", make_corpus, other_model, progress=False)
    assert len(builds) == 2 and len(list((tmp_path / "toy" / "v1").iterdir())) == 2  # embedders coexist
    open_dense_index(tmp_path, "toy", "v1", make_corpus, embedder, fields=["title"], progress=False)
    assert len(builds) == 3  # another field selection is another index
    everything = open_dense_index(tmp_path, "toy", "v1", make_corpus, embedder, progress=False)
    assert len(builds) == 4 and everything.fields == ("title", "note", "empty")  # the stored one had title only
    open_dense_index(tmp_path, "toy", "v2", make_corpus, embedder, fields=["title"], progress=False)
    assert [path.name for path in (tmp_path / "toy").iterdir()] == ["v2"]
    assert dense_index_directory(tmp_path, "toy", "v2", "local:other:max64").name.startswith("local_other_max64-")


# ---- candidates and weights -----------------------------------------------------------------------------
KEYS: list[FieldKey] = [("name", "bm25"), ("name", "dense"), ("IS_A", "bm25")]


def test_weights_have_one_entry_per_key_and_sum_to_one() -> None:
    rng = np.random.default_rng(5)
    model = FieldWeightModel(
        tuple(KEYS),
        rng.standard_normal((3, DIM)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
        "table",
    )
    matrix = model.weight_matrix(unit_rows(rng, 4))
    assert matrix.shape == (4, 3) and np.allclose(matrix.sum(axis=1), 1.0) and (matrix > 0).all()
    weights = model.weights(unit_rows(rng, 1)[0])
    assert list(weights) == KEYS and sum(weights.values()) == pytest.approx(1.0)
    with pytest.raises(TextBranchError, match=r"shape \(m, 16\)"):
        model.weight_matrix(np.ones((2, 3)))


def test_untrained_model_gives_exactly_the_uniform_weights() -> None:
    model = FieldWeightModel.uniform(["name", "IS_A"], ["bm25", "dense"], DIM, "table")
    assert model.weights(unit_rows(np.random.default_rng(6), 1)[0]) == uniform_weights(
        ["name", "IS_A"], ["bm25", "dense"]
    )


def test_candidate_ranking_is_combine_fields() -> None:
    rankings: dict[FieldKey, ScoredNodes] = {
        ("name", "bm25"): ScoredNodes("name", ("a", "b"), (4.0, 2.0)),
        ("name", "dense"): ScoredNodes("name", ("b", "c"), (0.5, 0.25)),
        ("IS_A", "bm25"): ScoredNodes("IS_A"),
    }
    candidates = CandidateScores.from_rankings(rankings, KEYS)
    assert candidates.ids == ("a", "b", "c")
    assert candidates.scores.tolist() == [[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.5, 0.0]]
    weights: dict[FieldKey, float] = {("name", "bm25"): 0.25, ("name", "dense"): 0.75, ("IS_A", "bm25"): 0.0}
    ranked = candidates.rank(np.asarray(list(weights.values())))
    # b: 0.25 * 0.5 + 0.75 * 1 = 0.875, c: 0.75 * 0.5 = 0.375, a: 0.25 * 1 = 0.25
    assert ranked.ids == ("b", "c", "a") and ranked.scores == pytest.approx((0.875, 0.375, 0.25))
    assert combine_fields(rankings, weights) == ranked


def test_a_candidate_outside_a_keys_top_gets_its_own_score_there() -> None:
    """mFAR scores every candidate under every key: 'c' is outside name/bm25's top 2 but has a BM25 score there
    (3.0 of the top's 4.0), which counts instead of 0; keys that cannot score any node keep 0."""
    rankings: dict[FieldKey, ScoredNodes] = {
        ("name", "bm25"): ScoredNodes("name", ("a", "b"), (4.0, 2.0)),
        ("name", "dense"): ScoredNodes("name", ("b", "c"), (0.5, 0.25)),
        ("IS_A", "bm25"): ScoredNodes("IS_A"),
    }
    asked: list[tuple[NodeId, ...]] = []

    def name_bm25(ids: Sequence[NodeId]) -> np.ndarray:
        asked.append(tuple(ids))
        return np.asarray([{"a": 4.0, "b": 2.0, "c": 3.0}[node_id] for node_id in ids])

    exact = {("name", "bm25"): name_bm25, ("IS_A", "bm25"): lambda ids: np.ones(len(ids))}
    candidates = CandidateScores.from_rankings(rankings, KEYS, exact)
    assert asked == [("a", "b", "c")]
    assert candidates.scores.tolist() == [[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.75, 0.5, 0.0]]  # IS_A: no top
    uniform = np.full(3, 1 / 3)
    assert candidates.rank(uniform).ids == ("b", "c", "a")  # c: (0.75 + 0.5) / 3 beats a's 1 / 3
    assert CandidateScores.from_rankings(rankings, KEYS).rank(uniform).ids == ("b", "a", "c")  # without: a first


def test_best_field_cosine_is_the_closest_own_text_field_of_each_node() -> None:
    rng = np.random.default_rng(11)
    vectors = unit_rows(rng, 4)
    table = {"Seizure": vectors[0], "fits": vectors[1], "a brain storm": vectors[2], "Dravet": vectors[3]}
    corpus = FieldCorpus(
        ("P1", "D1"),
        ("Phenotype", "Disease"),
        {"name": ("Seizure", "Dravet"), "synonyms": ("fits", ""), "definition": ("a brain storm", "")},
        ("Seizure doc", "Dravet doc"),
    )
    index = DenseFieldIndex.build(corpus, TableEmbedder(table | {"": vectors[0]}))
    query = vectors[2]
    best = index.best_field_cosine(query, ["P1", "D1", "nowhere"])
    assert best[0] == pytest.approx(max(float(vectors[1] @ query), 1.0))  # the definition itself: cosine 1
    assert best[1:] == [None, None]  # D1 has no text but its name; an unknown id has nothing
    assert index.best_field_cosine(query, ["P1"], fields=["synonyms"]) == [pytest.approx(float(vectors[1] @ query))]


def test_own_text_matches_find_nodes_by_their_own_text_not_their_names() -> None:
    rng = np.random.default_rng(12)
    vectors = unit_rows(rng, 5)
    table = {"Seizure": vectors[0], "fits": vectors[1], "a brain storm": vectors[2], "Dravet": vectors[3]}
    table |= {"storms of the brain": vectors[2], "": vectors[4]}
    corpus = FieldCorpus(
        ("P1", "D1", "P2"),
        ("Phenotype", "Disease", "Phenotype"),
        {
            "name": ("Seizure", "Dravet", "fits"),  # P2's *name* is P1's synonym: names are not read
            "synonyms": ("fits", "", ""),
            "definition": ("a brain storm", "storms of the brain", ""),
        },
        ("Seizure doc", "Dravet doc", "fits doc"),
    )
    index = DenseFieldIndex.build(corpus, TableEmbedder(table))
    found = index.own_text_matches(np.stack([vectors[2], vectors[1]]), 2)
    # a definition equal to the query: cosine 1, for each node with it, ties by id; the node's type comes along
    assert found[0] == [("D1", "Disease", pytest.approx(1.0)), ("P1", "Phenotype", pytest.approx(1.0))]
    # P1's synonym matches; P2, named so, has no own text
    assert [(node, label) for node, label, _ in found[1]][0] == ("P1", "Phenotype")
    assert all(node != "P2" for node, _, _ in found[1])
    # one type per query keeps the others out
    assert [node for node, _, _ in index.own_text_matches(vectors[2][None, :], 2, ["Phenotype"])[0]] == ["P1"]


def conditional_examples(count: int, seed: int) -> list[WeightExample]:
    """Key j is right exactly when the query points along axis j: a task only query-conditioned weights solve.

    Gold g scores 1 under the right key and 0 elsewhere; decoy d 0.6 under both other keys. Uniform weights
    rank d first (0.4 > 1/3, reciprocal rank 0.5); any weight above 0.375 on the right key ranks g first.
    A query-independent prior cannot do that for all three axes.
    """
    rng = np.random.default_rng(seed)
    examples = []
    for _ in range(count):
        right = int(rng.integers(3))
        query = np.zeros(DIM, np.float32)
        query[right] = 1.0
        scores = np.zeros((2, 3))
        scores[0, right] = 1.0
        scores[1] = 0.6
        scores[1, right] = 0.0
        examples.append(WeightExample(query, CandidateScores(("g", "d"), scores), frozenset({"g"})))
    return examples


@needs_torch
def test_training_learns_query_conditioned_weights_and_is_deterministic() -> None:
    train, valid = conditional_examples(60, seed=7), conditional_examples(20, seed=8)
    config = TrainConfig(epochs=40, learning_rate=0.05, seed=3)
    model, report = train_field_weights(train, valid, KEYS, "table", config)
    again, _ = train_field_weights(train, valid, KEYS, "table", config)
    assert np.array_equal(model.weight, again.weight) and np.array_equal(model.bias, again.bias)
    assert report.valid_mrr_uniform == 0.5 and report.train_questions == 60 and report.valid_questions == 20
    assert report.best_epoch >= 1 and report.valid_mrr_best == mean_reciprocal_rank(model, valid) == 1.0
    assert len(report.losses) == report.epochs_run and report.losses[-1] < report.losses[0]


def test_save_load_round_trip_reorders_keys_and_refuses_other_fields(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    model = FieldWeightModel(
        tuple(KEYS),
        rng.standard_normal((3, DIM)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
        "table",
    )
    model.save(tmp_path)
    query = unit_rows(rng, 1)[0]
    loaded = FieldWeightModel.load(tmp_path, KEYS, "table")
    assert np.array_equal(loaded.weight, model.weight) and loaded.weights(query) == model.weights(query)
    reordered = FieldWeightModel.load(tmp_path, KEYS[::-1], "table")
    assert reordered.keys == tuple(KEYS[::-1]) and reordered.weights(query) == pytest.approx(model.weights(query))
    refusal = (
        r"trained for \(field, scorer\) keys .*missing from the model: \[\('synonyms', 'bm25'\)\], "
        r"unknown to the index: \[\('IS_A', 'bm25'\)\]\); retrain it"
    )
    with pytest.raises(TextBranchError, match=refusal):
        FieldWeightModel.load(tmp_path, [*KEYS[:2], ("synonyms", "bm25")], "table")
    with pytest.raises(TextBranchError, match="trained on query vectors of 'table', not 'local:minilm:max256'"):
        FieldWeightModel.load(tmp_path, KEYS, "local:minilm:max256")
    with pytest.raises(TextBranchError, match="no readable field weight model"):
        FieldWeightModel.load(tmp_path / "missing", KEYS, "table")
    fallback = open_field_weights(tmp_path / "missing", [("name", "bm25"), ("name", "dense")], DIM, "table")
    assert fallback.weights(query) == {("name", "bm25"): 0.5, ("name", "dense"): 0.5}
    with pytest.raises(TextBranchError, match="was trained for"):  # stale, not silently replaced by uniform
        open_field_weights(tmp_path, [("name", "bm25"), ("name", "dense")], DIM, "table")


def test_training_without_torch_names_the_train_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(TextBranchError, match=r"needs torch.*pip install 'grasp-agent\[train\]'"):
        train_field_weights(conditional_examples(3, 0), conditional_examples(3, 1), KEYS, "table")


def test_text_branch_imports_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None; "
        "import grasp_agent.text_branch.field_weights, grasp_agent.text_branch.candidates, "
        "grasp_agent.text_branch.dense_fields"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# ---- a real run: HPO slice, MiniLM, generated questions --------------------------------------------------
@pytest.mark.slow
@needs_torch
def test_trained_weights_do_not_lose_to_uniform_on_held_out_hpo_questions(embedder: GraspEmbedder) -> None:
    """Early stopping keeps epoch 0 (the uniform weights) unless an epoch beats it on valid, so valid can
    only improve; the held-out test split is the real check: trained >= uniform (seeded, deterministic)."""
    from grasp_agent.evaluation.hpo_questions import generate_hpo_questions
    from grasp_agent.skb.hpo import HpoSource
    from grasp_agent.text_branch.bm25_index import LexicalIndex
    from grasp_agent.text_branch.fields import fields_from_records

    source = HpoSource(subset_roots=("HP:0011097",))
    schema = source.schema()
    corpus = FieldCorpus.from_schema_nodes(schema, fields_from_records(schema, source.nodes(), source.edges()))
    lexical, dense = LexicalIndex.build(corpus), DenseFieldIndex.build(corpus, embedder)
    questions = generate_hpo_questions(source, 400, seed=0)
    vectors = embedder.embed_texts([question.text for question in questions])
    keys = list(uniform_weights(dense.fields, ["bm25", "dense"]))

    def examples(split: str) -> list[WeightExample]:
        rows = [row for row, question in enumerate(questions) if question.split == split]
        return weight_examples(
            keys,
            [questions[row].text for row in rows],
            vectors[rows],
            [questions[row].answer_ids for row in rows],
            lexical=lexical,
            dense=dense,
            node_types=[questions[row].target_type for row in rows],
        )

    train, valid, test = examples("train"), examples("valid"), examples("test")
    model, report = train_field_weights(train, valid, keys, embedder.model_id, TrainConfig(seed=0))
    uniform = FieldWeightModel.uniform(dense.fields, ["bm25", "dense"], embedder.dimension, embedder.model_id)
    assert len(keys) == 18 and len(test) >= 50
    assert report.best_epoch >= 1 and report.valid_mrr_best > report.valid_mrr_uniform
    assert mean_reciprocal_rank(model, test) >= mean_reciprocal_rank(uniform, test)
