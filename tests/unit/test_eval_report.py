"""Evaluation report math on hand-made runs: scores, latency percentiles, breakdowns, comparisons, Markdown."""

from __future__ import annotations

import pytest

from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.evaluation.report import breakdown, build_report, system_scores, to_markdown
from grasp_agent.evaluation.runner import EvaluationError, QueryRun, SystemRuns, check_systems, missing_answers

QUERIES = [
    EvalQuery(id="q1", text="a", answer_ids=("x",), template="t1", hops=1, level="explicit"),
    EvalQuery(id="q2", text="b", answer_ids=("y", "z"), template="t1", hops=2, level="bare"),
    EvalQuery(id="q3", text="c", answer_ids=("w",), template="t2", hops=2, level="explicit"),
]
GOLD = {query.id: set(query.answer_ids) for query in QUERIES}


def runs(
    system: str, rankings: list[tuple[str, ...]], latencies: list[float], failures: list[str | None] | None = None
) -> SystemRuns:
    failures = failures or [None] * len(rankings)
    return SystemRuns(
        system,
        [
            QueryRun(q.id, ranked, ms, failure)
            for q, ranked, ms, failure in zip(QUERIES, rankings, latencies, failures, strict=True)
        ],
    )


GOOD = runs("grasp", [("x",), ("a", "y"), ("w", "b")], [10.0, 20.0, 30.0])
POOR = runs("hybrid", [("a", "x"), (), ("b",)], [1.0, 2.0, 100.0], [None, "timeout", None])


def test_scores_by_hand() -> None:
    score = system_scores(GOOD, GOLD)
    assert score.queries == 3 and score.failures == 0
    assert score.hit_at_1 == pytest.approx(2 / 3)  # q1 and q3 first
    assert score.hit_at_5 == 1.0
    assert score.recall_at_20 == pytest.approx((1 + 0.5 + 1) / 3)  # q2 finds y, not z
    assert score.mrr == pytest.approx((1 + 0.5 + 1) / 3)
    assert score.latency_mean_ms == 20.0 and score.latency_p50_ms == 20.0
    assert score.latency_p95_ms == pytest.approx(29.0)  # numpy's linear interpolation
    poor = system_scores(POOR, GOLD)
    assert poor.failures == 1 and poor.hit_at_1 == 0.0 and poor.mrr == pytest.approx(0.5 / 3)


def test_breakdowns_group_queries_by_metadata() -> None:
    by_hops = breakdown({"grasp": GOOD, "hybrid": POOR}, QUERIES, "hops")
    assert by_hops["1"]["grasp"] == {"queries": 1, "Hit@1": 1.0, "MRR": 1.0}
    assert by_hops["2"]["grasp"] == {"queries": 2, "Hit@1": 0.5, "MRR": 0.75}
    assert by_hops["2"]["hybrid"]["Hit@1"] == 0.0
    assert set(breakdown({"grasp": GOOD}, QUERIES, "level")) == {"bare", "explicit"}


def test_report_compares_grasp_with_the_best_branch_and_hybrid() -> None:
    text = runs("text", [("x",), (), ()], [1.0, 1.0, 1.0])
    report = build_report({"hybrid": POOR, "text": text, "grasp": GOOD}, QUERIES)
    assert [(c.a, c.b) for c in report.comparisons] == [("grasp", "text"), ("grasp", "hybrid")]
    versus_hybrid = report.comparisons[1]
    assert versus_hybrid.hit1_a == pytest.approx(2 / 3) and versus_hybrid.hit1_b == 0.0
    assert versus_hybrid.mcnemar_p == pytest.approx(0.5)  # b = 2, c = 0: exact 2 * 0.5^2
    markdown = to_markdown(report)
    assert "| grasp | 3 | 0.667 | 1.000 |" in markdown and "Hit@1 by template" in markdown
    assert "| hybrid | 3 | 0.000 |" in markdown and "| 1 |" in markdown.split("failures |")[1].split("\n")[2]


def test_systems_and_missing_answers_are_checked() -> None:
    assert check_systems(["grasp", "bm25", "grasp"]) == ["grasp", "bm25"]
    with pytest.raises(EvaluationError, match="unknown: \\['bm26'\\]"):
        check_systems(["bm26"])
    absent = missing_answers(QUERIES, ["x", "z", 7])
    assert [query.id for query in absent] == ["q3"]
    stark = EvalQuery(id="s1", text="s", answer_ids=("7",))  # STaRK ids are ints in the database
    assert missing_answers([stark], ["x", 7]) == []


def test_worded_answers_get_em_per_level_and_hops_cell_and_stage_medians() -> None:
    answered = SystemRuns(
        "adapath",
        [
            QueryRun("q1", ("x",), 10.0, answer="X syndrome", stages_ms={"search": 4.0, "answer": 1.0}),
            QueryRun("q2", ("a",), 20.0, answer="wrong", stages_ms={"search": 8.0, "answer": 1.0}),
            QueryRun("q3", ("w",), 30.0, answer=" w  DISEASE ", stages_ms={"search": 6.0, "answer": 3.0}),
        ],
    )
    names = {"q1": {"X syndrome"}, "q2": {"Y", "Z"}, "q3": {"W disease"}}
    report = build_report({"grasp": GOOD, "adapath": answered}, QUERIES, names)
    (em,) = report.answers  # only the system that answers in words
    assert em.system == "adapath" and em.questions == 3
    assert em.cells == {"bare/2": 0.0, "explicit/1": 1.0, "explicit/2": 1.0}
    assert em.em_overall == pytest.approx(2 / 3) and em.em_micro == pytest.approx(2 / 3)
    assert report.stage_p50_ms == {"adapath": {"search": 6.0, "answer": 1.0}}
    text = to_markdown(report)
    assert "| adapath | 3 | 0.667 | 0.667 | 0.000 | 1.000 | 1.000 |" in text and "search 6, answer 1" in text
    assert build_report({"adapath": answered}, QUERIES).answers == []  # no gold names: no EM
