"""`grasp bench build`'s generator on a real loaded SKB (the Epileptic-spasm slice of HPO): every answer set is
what the graph says, recomputed here in Python from the raw edge list; conjunctions are hard (each anchor
narrows the other); the same seed writes the same questions; and the CLI writes a file `grasp eval` reads."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.evaluation.query_sets import EvalQuery, read_queries
from grasp_agent.evaluation.skb_questions import SkbGraph, generate_skb_questions
from grasp_agent.evaluation.skb_templates import FAMILIES, Step
from grasp_agent.graph_branch.name_dictionary import within_one_edit
from grasp_agent.skb.context import read_skb_context
from tests.conftest import TEST_INSTANCE_ENV, cli_env
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.usefixtures("hpo_slice")

Edges = dict[tuple[str, str, bool], set[str]]  # (node id, relation, walked outgoing) -> neighbour ids


@pytest.fixture(scope="module")
def edges(driver: Driver) -> tuple[Edges, dict[str, str]]:
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) WHERE a.id IS NOT NULL AND b.id IS NOT NULL "
        "RETURN a.id AS a, type(r) AS r, b.id AS b, labels(a) AS la, labels(b) AS lb"
    )
    walk: Edges = defaultdict(set)
    labels: dict[str, str] = {}
    for row in records:
        walk[row["a"], row["r"], True].add(row["b"])
        walk[row["b"], row["r"], False].add(row["a"])
        labels[row["a"]] = next(iter(sorted(row["la"])))
        labels[row["b"]] = next(iter(sorted(row["lb"])))
    return walk, labels


@pytest.fixture(scope="module")
def questions(driver: Driver, test_settings: Settings) -> list[EvalQuery]:
    context = read_skb_context(driver, test_settings.neo4j_database)
    return generate_skb_questions(SkbGraph(driver, test_settings.neo4j_database), context, 120, seed=5)


def _reached(walk: Edges, labels: dict[str, str], start: str, leg: tuple[Step, ...]) -> set[str]:
    nodes = {start}
    for step in leg:
        nodes = {
            n for node in nodes for n in walk.get((node, step.relation, step.outgoing), ()) if labels[n] == step.target
        }
    return nodes - {start}


def _legs(template: str) -> list[tuple[Step, ...]]:
    """The template's walk parsed back from its name ('A>REL>B<REL2<C', legs joined by '&')."""
    legs = []
    for text in template.split("&"):
        parts, steps = [], []
        token = ""
        for char in text:
            if char in "<>":
                parts.append(token)
                parts.append(char)
                token = ""
            else:
                token += char
        parts.append(token)
        source = parts[0]
        for i in range(1, len(parts), 4):
            outgoing = parts[i] == ">"
            relation, target = parts[i + 1], parts[i + 3]
            steps.append(Step(relation, outgoing, source, target))
            source = target
        legs.append(tuple(steps))
    return legs


def test_every_answer_set_is_what_the_graph_says(
    questions: list[EvalQuery], edges: tuple[Edges, dict[str, str]]
) -> None:
    walk, labels = edges
    assert len(questions) >= 40
    for query in questions:
        assert query.template is not None and query.target_type is not None
        if query.hops == 0:
            continue  # a lookup: the next test
        if query.template.endswith("~text"):  # mentioning: one node of the walk, picked by a word of its text
            (anchor,) = query.topic_ids
            reached_one = _reached(walk, labels, anchor, _legs(query.template.removesuffix("~text"))[0])
            assert len(query.answer_ids) == 1 and query.answer_ids[0] in reached_one and len(reached_one) >= 2
            continue
        legs = _legs(query.template)
        assert len(legs) == len(query.topic_ids)
        reached = [_reached(walk, labels, anchor, leg) for anchor, leg in zip(query.topic_ids, legs, strict=True)]
        expected = set.intersection(*reached)
        assert set(query.answer_ids) == expected, query.text
        assert 1 <= len(expected) <= 20
        assert all(labels[answer] == query.target_type for answer in expected)
        if len(legs) == 2:  # a hard conjunction: each anchor alone allows more answers
            assert all(len(alone) > len(expected) for alone in reached), query.text
        named = [anchor.name is not None and anchor.name.lower() in query.text.lower() for anchor in query.anchors]
        if query.level == "misspelt":  # one anchor's name with one slip of the keyboard in one of its words
            assert named.count(False) == 1, query.text
            (slipped,) = [a.name for a, ok in zip(query.anchors, named, strict=True) if not ok]
            marks = "?,.;:()[]'\""
            words = [written.strip(marks) for written in query.text.split()]
            assert slipped is not None and all(
                any(within_one_edit(word.strip(marks), written) for written in words) for word in slipped.split()
            ), query.text
        elif query.level != "described":
            assert all(named), query.text


def test_a_lookup_is_the_one_node_its_own_text_describes(
    driver: Driver, test_settings: Settings, questions: list[EvalQuery]
) -> None:
    """By the first sentence of its first text field, or by the whole value of a field (not a synonym) that no
    other node of its type holds."""
    context = read_skb_context(driver, test_settings.neo4j_database)
    lookups = [query for query in questions if query.hops == 0]
    assert lookups and all(query.template == f"{query.target_type}=described" for query in lookups)
    for query in lookups:
        assert query.target_type is not None and not query.topic_ids and len(query.answer_ids) == 1
        node_type = context.schema.node_type(query.target_type)
        fields = node_type.text_fields
        records, _, _ = driver.execute_query(
            "MATCH (n) WHERE $label IN labels(n) RETURN n.id AS id, n.name AS name, [f IN $fields | n[f]] AS texts",
            label=query.target_type,
            fields=list(fields),
        )
        first = {}  # node id -> the first sentence of its first non-empty text field
        for row in records:
            text = next((" ".join(t) if isinstance(t, list) else str(t) for t in row["texts"] if t), "")
            first[row["id"]] = text.split(". ")[0].strip().rstrip(".").lower()
        (answer,) = query.answer_ids
        sentence = first[answer]
        name = next(row["name"] for row in records if row["id"] == answer)
        assert name.lower() not in query.text.lower()
        if " ".join(sentence.split()[:20]) in query.text.lower():
            assert [node for node, other in first.items() if other == sentence] == [answer]
            continue
        values = {row["id"]: dict(zip(fields, row["texts"], strict=True)) for row in records}
        described = [
            field
            for field, value in values[answer].items()
            if field not in node_type.synonym_fields and isinstance(value, str) and value.lower() in query.text.lower()
        ]
        assert described, query.text
        assert any(
            [node for node, other in values.items() if other[field] == values[answer][field]] == [answer]
            for field in described
        ), query.text


def test_the_set_spreads_over_templates_families_and_splits(questions: list[EvalQuery]) -> None:
    assert len({q.template for q in questions}) >= 8
    assert any("&" in (q.template or "") for q in questions)
    assert any((q.hops or 0) == 2 for q in questions)
    assert any(q.hops == 0 for q in questions)
    assert {q.level for q in questions} <= set(FAMILIES) and len({q.level for q in questions}) >= 5
    assert {q.split for q in questions} == {"train", "valid", "test"}
    assert len({q.id for q in questions}) == len(questions)


def test_the_same_seed_gives_the_same_questions_and_another_seed_differs(
    driver: Driver, test_settings: Settings, questions: list[EvalQuery]
) -> None:
    context = read_skb_context(driver, test_settings.neo4j_database)
    graph = SkbGraph(driver, test_settings.neo4j_database)
    assert generate_skb_questions(graph, context, 120, seed=5) == questions
    assert generate_skb_questions(graph, context, 120, seed=6) != questions


def test_the_cli_writes_a_question_file(tmp_path: Path) -> None:
    out = tmp_path / "questions.jsonl"
    result = subprocess.run(
        [GRASP, "bench", "build", "--out", str(out), "--count", "30"],
        env=cli_env(TEST_INSTANCE_ENV),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "synthetic questions about hpo" in result.stdout
    written = read_queries(out)
    assert len(written) >= 10 and all(q.id.startswith("gen-") for q in written)
