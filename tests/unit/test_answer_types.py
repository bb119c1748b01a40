"""The answer-type prior (what a question naming no type asks for) and the planner's use of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from grasp_agent.errors import DataFileError
from grasp_agent.graph_branch.answer_types import (
    AnswerTypePrior,
    find_prior,
    fit_answer_type_prior,
    packaged_prior_path,
    read_prior,
    write_prior,
)
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row

LABELS = {"HP:1": "Phenotype", "HP:2": "Phenotype", "G:1": "Gene", "D:1": "Disease", "D:2": "Disease"}


def test_counts_follow_the_answers_type_per_anchor_type() -> None:
    questions = [
        (("HP:1",), ("D:1", "D:2")),  # phenotype -> disease
        (("HP:2", "G:1"), ("D:1",)),  # phenotype + gene -> disease
        (("D:1",), ("G:1",)),  # disease -> gene
        (("HP:1",), ("G:1",)),  # phenotype -> gene
        (("HP:1",), ("X:9",)),  # an answer of unknown type: not counted
    ]
    prior = fit_answer_type_prior("hpo", questions, LABELS)
    assert prior.questions == 4
    assert prior.overall == {"Disease": 2, "Gene": 2}
    assert prior.by_anchor_type == {
        "Disease": {"Gene": 1},
        "Gene": {"Disease": 1},
        "Phenotype": {"Disease": 2, "Gene": 1},
    }
    candidates = ["Phenotype", "Disease", "Gene"]
    assert prior.choose(["Phenotype"], candidates) == "Disease"
    assert prior.choose(["Disease"], candidates) == "Gene"
    assert prior.choose(["Phenotype", "Phenotype", "Gene"], candidates) == "Disease"
    # no anchor of a counted type: the overall counts decide (ties by name)
    assert prior.choose(["Drug"], candidates) == "Gene"
    assert AnswerTypePrior(skb="x", questions=0).choose(["Gene"], candidates) is None


def test_the_file_round_trips_and_a_bad_one_is_a_clear_error(tmp_path: Path) -> None:
    prior = fit_answer_type_prior("hpo", [(("HP:1",), ("D:1",))], LABELS)
    path = tmp_path / "deep" / "hpo.json"
    write_prior(path, prior)
    assert read_prior(path) == prior
    assert find_prior(path, "hpo") == prior and find_prior(path, "other") is None
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(DataFileError, match="not an answer-type prior"):
        read_prior(path)


def test_the_hpo_prior_ships_and_is_counted_on_train_only() -> None:
    prior = read_prior(packaged_prior_path("hpo"))
    assert prior.skb == "hpo" and prior.questions == 491  # the benchmark's train split
    assert find_prior(Path("/nonexistent/hpo.json"), "hpo") == prior


def test_a_question_naming_no_type_asks_what_training_questions_asked() -> None:
    table = EntityTable((_row("microcephaly", "Phenotype", 1.0), _row("seizures", "Phenotype", 1.0)))
    question = "My daughter has microcephaly and seizures. What could this be?"
    # without a prior: the most populous type, which such a question almost never asks for
    assert HeuristicPlanner(HPO_CONTEXT).build(question, table).target.type == "Phenotype"
    prior = read_prior(packaged_prior_path("hpo"))
    planned = HeuristicPlanner(HPO_CONTEXT, answer_types=prior).build(question, table)
    assert planned.target.type == "Disease" and len(planned.anchors) == 2
    # a type the question names still wins
    named = HeuristicPlanner(HPO_CONTEXT, answer_types=prior).build("Which genes cause microcephaly?", table)
    assert named.target.type == "Gene"


def test_a_kind_of_x_is_of_x_type_when_no_type_is_named() -> None:
    prior = read_prior(packaged_prior_path("hpo"))
    table = EntityTable((_row("strabismus", "Phenotype", 1.0),))
    plan = HeuristicPlanner(HPO_CONTEXT, answer_types=prior).build(
        "Which kind of strabismus is described as involving the nasal side?", table
    )
    assert plan.target.type == "Phenotype"
    assert [(h.relation, h.direction.value) for h in plan.hops] == [("IS_A", "in")]


def test_relevance_text_needs_a_word_the_skb_names_use() -> None:
    table = EntityTable((_row("microcephaly", "Phenotype", 1.0),))
    question = "My daughter has microcephaly. What could this be, doctor?"
    loose = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert loose.relevance_text  # "daughter", "doctor": no frame word list names them
    vocabulary = frozenset({"microcephaly", "early", "onset"})
    strict = HeuristicPlanner(HPO_CONTEXT, name_vocabulary=vocabulary).build(question, table)
    assert strict.relevance_text == ""  # nothing a node's text could be rescored by
    kept = HeuristicPlanner(HPO_CONTEXT, name_vocabulary=vocabulary).build(
        "Which early onset diseases show microcephaly?", table
    )
    assert "early onset" in kept.relevance_text
