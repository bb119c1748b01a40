"""The perturbation check's arithmetic: a group is stable when all its wordings rank one node first."""

from __future__ import annotations

from grasp_agent.evaluation.perturbation import group_of, perturbation_summary
from grasp_agent.evaluation.query_sets import EvalQuery


def _q(query_id: str, answers: tuple[str, ...] = ("A",)) -> EvalQuery:
    return EvalQuery(id=query_id, text="question", answer_ids=answers)


def test_groups_are_ids_without_their_position() -> None:
    assert group_of("hpoperturb-phenotype_diseases-1ae9a238dc25-7") == "hpoperturb-phenotype_diseases-1ae9a238dc25"


def test_stable_right_unstable_and_empty_groups() -> None:
    queries = [_q("g1-0"), _q("g1-1"), _q("g2-0"), _q("g2-1"), _q("g3-0"), _q("g3-1"), _q("g4-0"), _q("g4-1")]
    ranked = {
        "g1-0": ["A", "B"],
        "g1-1": ["A"],  # stable and right
        "g2-0": ["B", "A"],
        "g2-1": ["B"],  # stable, wrong
        "g3-0": ["A"],
        "g3-1": ["B"],  # two tops
        "g4-0": ["A"],  # g4-1 ranked nothing: not stable
    }
    summary = perturbation_summary("grasp", queries, ranked)
    assert (summary.groups, summary.stable, summary.stable_and_right) == (4, 2, 1)
    assert summary.stable_share == 0.5 and summary.right_share == 0.25
    assert {v.group: v.tops for v in summary.verdicts} == {"g1": 1, "g2": 1, "g3": 2, "g4": 2}


def test_no_groups_is_no_share() -> None:
    assert perturbation_summary("grasp", [], {}).stable_share == 0.0
