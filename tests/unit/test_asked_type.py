"""The asked-type classifier: features read from the question and the schema (names masked), a softmax fit that
learns what the training questions show, a file that round-trips, and a model kept only when it reads the valid
split better than the planner's rules."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grasp_agent.errors import DataFileError
from grasp_agent.graph_branch.asked_type import (
    AskedTypeEvidence,
    accuracy,
    find_model,
    fit_asked_type,
    majority_type,
    question_evidence,
    read_model,
    write_model,
)
from grasp_agent.skb.schema import NodeType, SkbSchema
from grasp_agent.training.asked_type_fit import ReadQuestion, fit_and_judge

LABELS = ("Person", "Film", "Studio")


def _schema() -> SkbSchema:
    return SkbSchema(
        name="films",
        node_types=(NodeType(label="Person", aliases=("director",)), NodeType(label="Film"), NodeType(label="Studio")),
    )


def test_evidence_reads_the_rule_the_type_words_the_anchors_and_masks_names() -> None:
    evidence = question_evidence(
        "Which films did Studio Film Works release?", _schema(), ["Studio Film Works"], ["Studio"]
    )
    features = set(evidence.features)
    assert {"bias", "rule:Film", "named:Film", "anchor:Studio", "after_wh:films", "word:release"} <= features
    assert "word:works" not in features  # the anchor's own words are masked
    assert "named:Studio" not in features  # a type word inside a name names nothing
    bare = question_evidence("what did they make?", _schema(), [], [])
    assert "rule:none" in bare.features


def _rows(n: int) -> list[tuple[AskedTypeEvidence, str]]:
    """'made by' questions ask for films, 'worked with' for people, whatever the rule says (it says Film)."""
    rows = []
    for i in range(n):
        rows.append((AskedTypeEvidence(("bias", "rule:Film", "word:made", f"word:x{i % 3}")), "Film"))
        rows.append((AskedTypeEvidence(("bias", "rule:Film", "word:worked", f"word:x{i % 3}")), "Person"))
    return rows


def test_the_fit_learns_what_the_words_say_and_drops_rare_features() -> None:
    model = fit_asked_type("films", _rows(20), LABELS)
    assert accuracy(model, _rows(5)) == 1.0
    worked = model.probabilities(AskedTypeEvidence(("bias", "rule:Film", "word:worked")))
    assert worked["Person"] > 0.8 and abs(sum(worked.values()) - 1.0) < 1e-9
    once = fit_asked_type("films", [*_rows(20), (AskedTypeEvidence(("word:once",)), "Studio")], LABELS)
    assert "word:once" not in once.weights
    assert model.choose(AskedTypeEvidence(("word:made",)), ["Studio"]) is not None
    assert model.choose(AskedTypeEvidence(("word:made",)), ["Unknown"]) is None


def test_no_rows_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no training questions"):
        fit_asked_type("films", [], LABELS)


def test_the_model_file_round_trips_and_a_bad_one_is_a_clear_error(tmp_path: Path) -> None:
    model = fit_asked_type("films", _rows(4), LABELS)
    path = tmp_path / "films.json"
    write_model(path, model)
    assert read_model(path) == model
    assert find_model(path, "films") == model
    assert find_model(path, "other") is None  # fitted on another SKB: not used
    assert find_model(tmp_path / "missing.json", "films") is None
    path.write_text("{not json")
    with pytest.raises(DataFileError, match="asked-type"):
        read_model(path)


def test_majority_type_counts_known_answers() -> None:
    labels = {"a": "Film", "b": "Film", "c": "Person"}
    assert majority_type(["a", "b", "c", "zz"], labels) == "Film"
    assert majority_type(["zz"], labels) is None


def _read(rows: list[tuple[AskedTypeEvidence, str]], planned: str) -> list[ReadQuestion]:
    return [ReadQuestion("train", evidence, planned, label) for evidence, label in rows]


def test_a_model_is_kept_only_when_it_beats_the_rules_on_valid(tmp_path: Path) -> None:
    out = tmp_path / "kept.json"
    better = fit_and_judge("films", LABELS, _read(_rows(20), "Film"), _read(_rows(5), "Film"), out)
    assert better.rule_valid == 0.5 and better.model_valid == 1.0
    assert better.written == out and out.is_file()
    perfect_rules = [ReadQuestion("valid", e, label, label) for e, label in _rows(5)]
    same = fit_and_judge("films", LABELS, _read(_rows(20), "Film"), perfect_rules, tmp_path / "not.json")
    assert same.written is None and not (tmp_path / "not.json").exists()


def test_the_planner_follows_a_fitted_model_over_its_rules_and_notes_the_scores() -> None:
    from grasp_agent.graph_branch.entity_table import EntityTable
    from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
    from grasp_agent.graph_branch.procedure_calls import PlanCheck
    from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row

    table = EntityTable((_row("KCNQ2", "Gene", 1.0), _row("infantile spasms", "Phenotype", 1.0)))
    question = "Which KCNQ2 dz features infantile spasms?"  # "dz": a disease, in notes; no type word of the schema
    rules = HeuristicPlanner(HPO_CONTEXT)
    ruled = rules.build(question, table).target.type
    assert ruled != "Disease"  # the rules read "features" as the asked type
    # training questions where the rules read this wording wrong: a disease is asked for
    evidence = rules.evidence(question, table)
    assert f"planned:{ruled}" in evidence.features and "word:dz" in evidence.features
    rows = [(evidence, "Disease")] * 10 + [(AskedTypeEvidence(("bias", "planned:Gene")), "Gene")] * 10
    model = fit_asked_type("hpo", rows, HPO_CONTEXT.labels)
    learned = HeuristicPlanner(HPO_CONTEXT, asked_type=model)
    assert learned.build(question, table).target.type == "Disease"
    outcome = learned.plan(question, table, lambda plan: PlanCheck(True))
    assert outcome.plan is not None and any(
        note.startswith("asked type (fitted model): Disease") for note in outcome.notes
    )
    assert not rules.plan(question, table, lambda plan: PlanCheck(True)).notes


def test_on_generated_questions_a_model_is_judged_on_wording_it_was_not_fitted_on(tmp_path: Path) -> None:
    # each wording family says the asked type its own way; the rules read it as Film every time
    def family(wording: str, split: str, n: int) -> list[ReadQuestion]:
        phrasing = {"which": ("word:shot", "Person"), "terse": ("word:arrow", "Studio")}[wording]
        return [ReadQuestion(split, AskedTypeEvidence(("bias", phrasing[0])), "Film", phrasing[1], wording)] * n

    train = family("which", "train", 10) + family("terse", "train", 10)
    valid = family("which", "valid", 4) + family("terse", "valid", 4)
    seen = fit_and_judge("films", LABELS, train, valid, tmp_path / "seen.json")
    assert seen.model_valid == 1.0 and seen.written is not None  # its own phrasings, read perfectly
    unseen = fit_and_judge("films", LABELS, train, valid, tmp_path / "unseen.json", by_wording=True)
    # fitted without a family's phrasing, the model reads none of that family right: no better than the rules
    assert unseen.rule_valid == 0.0 and unseen.model_valid == 0.0 and unseen.written is None
    # a phrasing every family shares carries over, and the model is kept
    shared = [
        replace(q, evidence=AskedTypeEvidence(("bias", "word:shot")), answer_type="Person") for q in train + valid
    ]
    kept = fit_and_judge("films", LABELS, shared[:20], shared[20:], tmp_path / "kept.json", by_wording=True)
    assert kept.model_valid == 1.0 and kept.written is not None
