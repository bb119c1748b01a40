"""The text branch's leave-template-out protocol and the field-weight prior, on hand-made candidates."""

from __future__ import annotations

import numpy as np
import pytest
import typer

from grasp_agent.cli.train import parse_prior
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.text_branch.candidates import CandidateScores, WeightExample
from grasp_agent.text_branch.field_weights import FieldWeightModel, prior_bias
from grasp_agent.text_branch.fields import TextBranchError
from grasp_agent.training.text_lto import candidate_scores, leave_template_out

KEYS = (("name", "bm25"), ("doc", "bm25"))


def _example(gold: str, name_scores: list[float], doc_scores: list[float], vector: list[float]) -> WeightExample:
    ids = ("a", "b", "c")
    scores = np.asarray([name_scores, doc_scores], dtype=np.float64).T
    return WeightExample(np.asarray(vector, np.float32), CandidateScores(ids, scores), frozenset({gold}))


def test_prior_bias_is_the_log_of_the_normalized_prior_with_one_percent_for_the_rest() -> None:
    keys = (("name", "bm25"), ("doc", "bm25"), ("source", "bm25"))
    bias = prior_bias(keys, {("doc", "bm25"): 3.0, ("name", "bm25"): 1.0})
    weights = np.exp(bias) / np.exp(bias).sum()
    assert weights == pytest.approx([0.2475, 0.7425, 0.01])
    with pytest.raises(TextBranchError, match="unknown"):
        prior_bias(keys, {("comment", "bm25"): 1.0})


def test_parse_prior_reads_field_scorer_weight_items() -> None:
    assert parse_prior("doc/bm25=0.5, name/dense=0.2") == {("doc", "bm25"): 0.5, ("name", "dense"): 0.2}
    for bad in ("doc=0.5", "doc/bm25=x", "doc/bm25=0", "doc/tfidf=1"):
        with pytest.raises(typer.BadParameter):
            parse_prior(bad)


def test_candidate_scores_are_hit_at_1_and_mrr_of_the_weighted_ranking() -> None:
    # gold "b": first by the doc key, second by the name key
    example = _example("b", [1.0, 0.5, 0.0], [0.2, 1.0, 0.0], [1.0, 0.0])
    name_only = FieldWeightModel(KEYS, np.zeros((2, 2), np.float32), np.asarray([5.0, -5.0], np.float32), "m")
    doc_only = FieldWeightModel(KEYS, np.zeros((2, 2), np.float32), np.asarray([-5.0, 5.0], np.float32), "m")
    assert candidate_scores(name_only, [example]).hit_at_1 == 0.0
    assert candidate_scores(name_only, [example]).mrr == pytest.approx(0.5)
    assert candidate_scores(doc_only, [example]).hit_at_1 == 1.0


def test_held_out_weights_never_see_the_template_they_are_scored_on() -> None:
    # template "x": the gold wins when the name key weighs more; template "y": when the doc key does (a tie, as
    # uniform weights give, ranks the wrong node first). Query vectors tell the two apart, so weights trained on
    # both serve both, while weights trained on one push the shared bias the wrong way for the other.
    questions, examples = [], []
    for index in range(24):
        template = "x" if index % 2 else "y"
        split = ("train", "valid", "test")[index % 3]
        vector = [1.0, 0.0] if template == "x" else [0.0, 1.0]
        scores = ([0.5, 1.0, 0.0], [1.0, 0.5, 0.0]) if template == "x" else ([1.0, 0.5, 0.0], [0.5, 1.0, 0.0])
        questions.append(
            EvalQuery(id=f"q{index}", text=f"question {index}", answer_ids=("b",), split=split, template=template)
        )
        examples.append(_example("b", list(scores[0]), list(scores[1]), vector))
    bm25 = {q.id: (0.0, 0.5) for q in questions}
    result = leave_template_out(questions, examples, bm25, KEYS, "m")
    by_template = {row.template: row for row in result.rows}
    assert set(by_template) == {"x", "y"} and all(row.questions == 4 for row in result.rows)
    assert all(row.in_template.hit_at_1 == 1.0 for row in result.rows)
    assert all(row.held_out.hit_at_1 == 0.0 for row in result.rows)  # the other template's rule is the wrong one
    assert result.overall("bm25").mrr == pytest.approx(0.5)
    assert result.below_bm25() == []  # 0.0 is not below BM25's 0.0
