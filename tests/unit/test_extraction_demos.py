"""Extraction demonstrations: derived from labelled training questions, stored, picked by similarity and shown
to the LLM extractor next to the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from grasp_agent.errors import DataFileError
from grasp_agent.evaluation.hashing_embedder import HashingEmbedder
from grasp_agent.graph_branch.extraction_demos import (
    DemoSelector,
    ExtractionDemo,
    LabelledNode,
    derive_demo,
    read_demos,
    write_demos,
)
from grasp_agent.graph_branch.llm_mentions import parse_mentions
from grasp_agent.graph_branch.mentions import MentionRole
from grasp_agent.graph_branch.plan import MatchMode
from grasp_agent.graph_branch.prompts import EXTRACTION_DEMOS, extraction_messages
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.hpo import HPO_SCHEMA

NODES = {
    "HP:1": LabelledNode("Phenotype", "Ataxia"),
    "HP:2": LabelledNode("Phenotype", "Absent toenail"),
    "G:1": LabelledNode("Gene", "SCN1A"),
    "D:1": LabelledNode("Disease", "Dravet syndrome"),
    "D:2": LabelledNode("Disease", "GEFS+"),
}


def _demo(question: str, topics: list[str], answers: list[str]) -> ExtractionDemo | None:
    return derive_demo("q", question, topics, answers, NODES, HPO_SCHEMA)


def test_named_topics_become_anchors_as_written_and_the_asked_type_the_target() -> None:
    demo = _demo("Which conditions show ataxia and are linked to SCN1A?", ["G:1", "HP:1"], ["D:1", "D:2"])
    assert demo is not None
    assert [(m.text, m.types, m.role, m.match_mode) for m in demo.answer.mentions] == [
        ("condition", ("Disease",), MentionRole.TARGET, MatchMode.NAME),  # singular, like a node name
        ("ataxia", ("Phenotype",), MentionRole.ANCHOR, MatchMode.NAME),  # in question order, as written
        ("SCN1A", ("Gene",), MentionRole.ANCHOR, MatchMode.NAME),
    ]


def test_a_topic_the_question_describes_is_its_one_quoted_passage_in_doc_mode() -> None:
    question = 'Which diseases present with the phenotype defined as "Congenital lack of a nail of the foot"?'
    demo = _demo(question, ["HP:2"], ["D:1"])
    assert demo is not None
    described = demo.answer.mentions[1]
    assert (described.text, described.match_mode) == ("Congenital lack of a nail of the foot", MatchMode.DOC)


@pytest.mark.parametrize(
    "question,topics,answers",
    [
        ("Which diseases present with a lack of toenails?", ["HP:2"], ["D:1"]),  # described without quotes
        ('Which diseases show "x" and "y"?', ["HP:2"], ["D:1"]),  # two passages: which one?
        ("Which diseases show ataxia?", ["HP:1"], ["D:1", "G:1"]),  # answers of two types
        ("Which diseases show ataxia?", ["HP:1", "HP:9"], ["D:1"]),  # a topic not in the SKB
        ("Which diseases show ataxias?", [], ["D:1"]),  # no topic
        ("Which diseases show Microataxia?", ["HP:1"], ["D:1"]),  # a name inside a longer word is not the name
    ],
)
def test_questions_whose_topics_cannot_all_be_placed_give_no_demonstration(
    question: str, topics: list[str], answers: list[str]
) -> None:
    assert _demo(question, topics, answers) is None


def test_demonstrations_survive_the_file_and_a_bad_line_is_named(tmp_path: Path) -> None:
    demo = _demo("What genes cause Dravet syndrome?", ["D:1"], ["G:1"])
    assert demo is not None
    path = tmp_path / "demos.jsonl"
    write_demos(path, [demo, demo])
    assert read_demos(path) == [demo, demo]
    path.write_text(path.read_text(encoding="utf-8") + '{"question": "no answer"}\n', encoding="utf-8")
    with pytest.raises(DataFileError, match=r"demos.jsonl:3: not an extraction demonstration"):
        read_demos(path)
    with pytest.raises(DataFileError, match="cannot read"):
        read_demos(tmp_path / "missing.jsonl")


def _selector(count: int) -> DemoSelector:
    questions = [
        ("What genes cause Dravet syndrome?", ["D:1"], ["G:1"]),
        ("Which conditions show ataxia?", ["HP:1"], ["D:1"]),
        ("Which conditions are linked to SCN1A?", ["G:1"], ["D:1"]),
    ]
    demos = [d for q, t, a in questions if (d := _demo(q, t, a)) is not None]
    assert len(demos) == 3
    return DemoSelector(demos, HashingEmbedder(), count)


def test_the_nearest_demonstrations_are_chosen_never_the_question_itself() -> None:
    selector = _selector(2)
    nearest = selector.nearest("Which conditions show seizures?")
    assert [d.question for d in nearest][0] == "Which conditions show ataxia?" and len(nearest) == 2
    assert "Which conditions show ataxia?" not in [
        d.question for d in selector.nearest("which conditions show ATAXIA?")
    ]
    with pytest.raises(ValueError, match="at least 1"):
        DemoSelector([], HashingEmbedder(), 0)
    assert DemoSelector([], HashingEmbedder()).nearest("anything") == []


def test_the_prompt_shows_the_nearest_demonstration_next_to_the_question() -> None:
    context = SkbContext(schema=HPO_SCHEMA, pattern_counts={}, label_counts={})
    demos = _selector(2).nearest("Which conditions show seizures?")
    messages = extraction_messages("Which conditions show seizures?", context, demos)
    assert len(messages) == 2 + 2 * len(EXTRACTION_DEMOS) + 2 * len(demos)
    nearest_question, nearest_answer = messages[-3], messages[-2]
    assert nearest_question["content"].endswith("Question: Which conditions show ataxia?")
    assert nearest_question["content"].startswith("Types: " + ", ".join(context.labels))
    # the answer shown is what the extractor must produce: it parses back to the demonstration's mentions
    assert parse_mentions(nearest_answer["content"]) == list(demos[0].answer.mentions)
