"""The fusion layer: weighted RRF, static/dynamic policies, tables I/O, fitting. Expected values are by hand."""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from pathlib import Path

import pytest

from grasp_agent.errors import GraspError
from grasp_agent.fusion import (
    AgreementMultipliers,
    DynamicFusionTables,
    FusedItem,
    FusionError,
    FusionExample,
    FusionMode,
    FusionTablesError,
    RiskMultipliers,
    branches_agree,
    bucket_of,
    dynamic_fusion,
    fit_dynamic,
    fit_static,
    graph_lead_first,
    graph_ties_in_graph_order,
    keyword_lead_first,
    named_first,
    rank_map,
    rank_of,
    rerank_fusion,
    static_fusion,
    weighted_rrf,
)
from grasp_agent.fusion.fitting import MIN_FIT_EXAMPLES
from grasp_agent.ranking import Risk, hit_at


def scores(items: Sequence[FusedItem]) -> dict[Hashable, float]:
    return {item.id: item.score for item in items}


# ---------------------------------------------------------------- weighted RRF


def test_rrf_two_rankings_equal_weights_by_hand() -> None:
    # A = [a, b, c], B = [c, a, d], k = 1, weights 0.5 / 0.5:
    #   a: 0.5/(1+1) + 0.5/(1+2) = 0.25  + 0.1667 = 0.4167
    #   c: 0.5/(1+3) + 0.5/(1+1) = 0.125 + 0.25   = 0.375
    #   b: 0.5/(1+2)             = 0.1667
    #   d:             0.5/(1+3) = 0.125
    fused = weighted_rrf([["a", "b", "c"], ["c", "a", "d"]], [0.5, 0.5], k=1)
    assert [item.id for item in fused] == ["a", "c", "b", "d"]
    assert scores(fused) == pytest.approx({"a": 0.25 + 1 / 6, "c": 0.375, "b": 1 / 6, "d": 0.125})
    assert [item.ranks for item in fused] == [(1, 2), (3, 1), (2, None), (None, 3)]


def test_rrf_weights_change_the_order_by_hand() -> None:
    # Same rankings, weights 0.9 / 0.1, k = 1:
    #   a: 0.9/2 + 0.1/3 = 0.45  + 0.0333 = 0.4833
    #   b: 0.9/3         = 0.3
    #   c: 0.9/4 + 0.1/2 = 0.225 + 0.05   = 0.275   (b now overtakes c)
    #   d:         0.1/4 = 0.025
    fused = weighted_rrf([["a", "b", "c"], ["c", "a", "d"]], [0.9, 0.1], k=1)
    assert [item.id for item in fused] == ["a", "b", "c", "d"]
    assert scores(fused) == pytest.approx({"a": 0.45 + 0.1 / 3, "b": 0.3, "c": 0.275, "d": 0.025})


def test_rrf_default_k_is_60() -> None:
    # x: 1/(60+1) + 1/(60+2); y: 1/(60+2) + 1/(60+1): a tie, broken by best rank then input order (x first).
    fused = weighted_rrf([["x", "y"], ["y", "x"]], [1.0, 1.0])
    assert [item.id for item in fused] == ["x", "y"]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62) and fused[0].score == fused[1].score


def test_rrf_ties_break_by_best_rank_then_input_order() -> None:
    # A = [u, v], B = [f1, f2, f3, f4, v], k = 1, weights 1 / 1:
    #   u: 1/2 = 0.5 (best rank 1, input 0)     f1: 1/2 = 0.5 (best rank 1, input 1)
    #   v: 1/3 + 1/6 = 0.5 (best rank 2)         f2: 1/3, f3: 1/4, f4: 1/5
    # Three-way tie at 0.5: best rank 1 beats 2, so v is last of them; u's rank 1 is in the earlier input.
    fused = weighted_rrf([["u", "v"], ["f1", "f2", "f3", "f4", "v"]], [1.0, 1.0], k=1)
    assert [item.id for item in fused] == ["u", "f1", "v", "f2", "f3", "f4"]
    assert fused[0].score == fused[1].score == pytest.approx(fused[2].score)
    assert fused[2].best_rank == 2


def test_rrf_missing_items_and_zero_weight_inputs() -> None:
    # Weight 0 on A: A-only items score 0 and come last (in A's order); nothing is dropped.
    fused = weighted_rrf([["p", "q", "shared"], ["shared", "r"]], [0.0, 1.0], k=1)
    assert [item.id for item in fused] == ["shared", "r", "p", "q"]
    assert scores(fused) == pytest.approx({"shared": 0.5, "r": 1 / 3, "p": 0.0, "q": 0.0})
    assert fused[2].ranks == (1, None)
    assert weighted_rrf([[], []], [0.5, 0.5]) == [] and weighted_rrf([], []) == []


def test_rrf_limit() -> None:
    rankings, weights = [["a", "b", "c"], ["c", "a", "d"]], [0.5, 0.5]
    assert [item.id for item in weighted_rrf(rankings, weights, k=1, limit=2)] == ["a", "c"]
    assert weighted_rrf(rankings, weights, limit=0) == []
    assert len(weighted_rrf(rankings, weights, limit=99)) == 4


def test_repeated_ids_keep_their_first_rank() -> None:
    assert rank_map(["a", "b", "a", "c"]) == {"a": 1, "b": 2, "c": 4}
    assert rank_of(["a", "b", "a"], "a") == 1 and rank_of(["a", "b"], "b") == 2 and rank_of(["a"], "z") is None
    # 1/(1+1) only once for the repeated a.
    assert weighted_rrf([["a", "a"]], [1.0], k=1)[0].score == 0.5


@pytest.mark.parametrize(
    ("rankings", "weights", "k", "limit", "message"),
    [
        ([["a"], ["b"]], [1.0], 60.0, None, "got 1 weights for 2 rankings"),
        ([["a"], ["b"]], [0.5, -0.1], 60.0, None, "weight 1 must be a finite number >= 0; got -0.1"),
        ([["a"]], [float("nan")], 60.0, None, "weight 0 must be a finite number >= 0; got nan"),
        ([["a"]], [1.0], 0.0, None, "k must be a finite number > 0; got 0.0"),
        ([["a"]], [1.0], -5.0, None, "got -5.0"),
        ([["a"]], [1.0], float("inf"), None, "got inf"),
        ([["a"]], [1.0], 60.0, -1, "limit must be >= 0 or None; got -1"),
    ],
)
def test_rrf_rejects_bad_inputs(
    rankings: list[list[str]], weights: list[float], k: float, limit: int | None, message: str
) -> None:
    with pytest.raises(FusionError, match=message.replace("(", r"\(")):
        weighted_rrf(rankings, weights, k, limit)
    assert issubclass(FusionError, GraspError)


def test_rerank_fusion_by_hand() -> None:
    # reranker [c, a] (weight 0.75), fused [a, b, c] (weight 0.25), k = 1:
    #   c: 0.75/2 + 0.25/4 = 0.375 + 0.0625 = 0.4375
    #   a: 0.75/3 + 0.25/2 = 0.25  + 0.125  = 0.375
    #   b:          0.25/3 = 0.0833  (the reranker did not see b)
    fused = rerank_fusion(["c", "a"], ["a", "b", "c"], w=0.75, k=1)
    assert [item.id for item in fused] == ["c", "a", "b"]
    assert scores(fused) == pytest.approx({"c": 0.4375, "a": 0.375, "b": 0.25 / 3})
    assert fused[0].ranks == (1, 3)
    with pytest.raises(FusionError, match=r"reranker weight w must be in \[0, 1\]; got 1.5"):
        rerank_fusion(["a"], ["a"], w=1.5)


# ---------------------------------------------------------------- static fusion


GRAPH, TEXT = ["g1", "both"], ["t1", "both"]


def test_static_weight_zero_is_text_order_then_graph_only_items() -> None:
    # w = 0, k = 60: t1 1/61, both 1/62, g1 0.
    result = static_fusion(GRAPH, TEXT, graph_weight=0.0)
    assert result.ids == ["t1", "both", "g1"] and result.mode is FusionMode.HYBRID
    assert result.graph_weight == 0.0 and result.text_weight == 1.0 and result.k == 60.0
    assert [item.score for item in result.items] == pytest.approx([1 / 61, 1 / 62, 0.0])


def test_static_weight_one_is_graph_order() -> None:
    result = static_fusion(GRAPH, TEXT, graph_weight=1.0)
    assert result.ids == ["g1", "both", "t1"] and result.items[1].ranks == (2, 2)


def test_static_half_weight_by_hand() -> None:
    # w = 0.5, k = 1: g1 0.5/2 = 0.25; t1 0.5/2 = 0.25; both 0.5/3 + 0.5/3 = 0.3333.
    # g1 and t1 tie with best rank 1; g1's is in the graph ranking (input 0), so g1 first.
    result = static_fusion(GRAPH, TEXT, graph_weight=0.5, k=1)
    assert result.ids == ["both", "g1", "t1"]
    assert result.items[0].score == pytest.approx(1 / 3)


def test_static_empty_graph_ranking_is_text_only() -> None:
    result = static_fusion([], ["t1", "t2"], graph_weight=0.8, k=60, limit=1)
    assert result.mode is FusionMode.TEXT_ONLY and result.graph_weight == 0.0
    assert result.ids == ["t1"] and result.items[0].score == pytest.approx(1 / 61)
    assert result.items[0].ranks == (None, 1)
    assert result.note is not None and "graph ranking is empty" in result.note and "0.8" in result.note


def test_static_empty_text_ranking_and_bad_weight() -> None:
    result = static_fusion(["g1", "g2"], [], graph_weight=0.3)
    assert result.ids == ["g1", "g2"] and result.mode is FusionMode.HYBRID
    assert result.note == "text ranking is empty: graph order only"
    for bad in (-0.1, 1.01, float("nan")):
        with pytest.raises(FusionError, match="graph weight must be in"):
            static_fusion(["g"], ["t"], graph_weight=bad)


# ---------------------------------------------------------------- dynamic fusion


@pytest.mark.parametrize(
    ("n_cand", "bucket"),
    [
        (0, 0),
        (1, 0),
        (10, 0),
        (11, 1),
        (50, 1),
        (51, 2),
        (100, 2),
        (101, 3),
        (500, 3),
        (501, 4),
        (10**6, 4),
    ],
)
def test_bucket_boundaries(n_cand: int, bucket: int) -> None:
    assert bucket_of(n_cand) == bucket


def test_negative_n_cand_is_rejected() -> None:
    with pytest.raises(FusionError, match="n_cand must be >= 0; got -1"):
        bucket_of(-1)


@pytest.mark.parametrize(
    ("n_cand", "risk", "weight"),
    [
        (1, Risk.LOW, 0.8),
        (10, Risk.MEDIUM, 0.8 * 0.7),
        (11, Risk.HIGH, 0.65 * 0.3),
        (50, Risk.LOW, 0.65),
        (51, Risk.MEDIUM, 0.5 * 0.7),
        (100, Risk.HIGH, 0.5 * 0.3),
        (101, Risk.LOW, 0.35),
        (500, Risk.MEDIUM, 0.35 * 0.7),
        (501, Risk.HIGH, 0.2 * 0.3),
    ],
)
def test_default_tables_weight_is_bucket_times_risk(n_cand: int, risk: Risk, weight: float) -> None:
    assert DynamicFusionTables().graph_weight(n_cand, risk) == pytest.approx(weight)


def test_weight_is_clipped_to_one() -> None:
    tables = DynamicFusionTables(m_risk=RiskMultipliers(low=2.0))
    assert tables.graph_weight(5, Risk.LOW) == 1.0  # 0.8 x 2.0 = 1.6 -> 1
    assert tables.graph_weight(600, Risk.LOW) == pytest.approx(0.4)  # 0.2 x 2.0


def test_dynamic_fusion_uses_the_table_weight_and_k() -> None:
    tables = DynamicFusionTables(w_bucket=(1.0, 0.5, 0.5, 0.5, 0.0), k=1.0)
    result = dynamic_fusion(GRAPH, TEXT, n_cand=3, risk=Risk.MEDIUM, tables=tables)
    # weight 1.0 x 0.7 = 0.7, k = 1: g1 0.7/2 = 0.35; both 0.7/3 + 0.3/3 = 0.3333; t1 0.3/2 = 0.15.
    assert result.ids == ["g1", "both", "t1"] and result.graph_weight == pytest.approx(0.7)
    assert result.bucket == 0 and result.risk is Risk.MEDIUM and result.k == 1.0
    assert result.items == static_fusion(GRAPH, TEXT, 0.7, k=1.0).items
    assert result.note is not None and "bucket 1-10" in result.note
    # bucket >500 has weight 0: text order, graph-only items last.
    assert dynamic_fusion(GRAPH, TEXT, n_cand=501, risk=Risk.LOW, tables=tables).ids == ["t1", "both", "g1"]


def test_the_branches_agree_when_the_graphs_first_is_on_the_texts_first_page() -> None:
    assert branches_agree(["g1", "x"], ["t1", "g1"])
    assert not branches_agree(["g1"], [f"t{i}" for i in range(10)] + ["g1"])  # rank 11: off the first page
    assert branches_agree(["g1"], ["t1", "g1"], depth=2) and not branches_agree(["g1"], ["t1", "g1"], depth=1)
    assert not branches_agree([], ["t1"]) and not branches_agree(["g1"], [])


def test_agreement_scales_the_graph_weight_and_the_note_says_so() -> None:
    tables = DynamicFusionTables(w_bucket=(1.0, 0.5, 0.5, 0.5, 0.0), m_agree=AgreementMultipliers(disagree=0.4))
    assert tables.graph_weight(3, Risk.LOW) == 1.0  # agreement not given: left out
    assert tables.graph_weight(3, Risk.LOW, agreed=True) == 1.0
    assert tables.graph_weight(3, Risk.MEDIUM, agreed=False) == pytest.approx(0.7 * 0.4)
    agreeing = dynamic_fusion(["g1", "both"], ["both", "g1"], n_cand=3, risk=Risk.LOW, tables=tables)
    assert agreeing.graph_weight == 1.0 and agreeing.note is not None and "branches agree" in agreeing.note
    disagreeing = dynamic_fusion(GRAPH, TEXT, n_cand=3, risk=Risk.LOW, tables=tables)  # g1 is not in TEXT
    assert disagreeing.graph_weight == pytest.approx(0.4)
    assert disagreeing.note is not None and "branches disagree" in disagreeing.note and "x 0.4" in disagreeing.note


def test_tables_fitted_before_agreement_load_with_neutral_multipliers() -> None:
    old = json.dumps({"w_bucket": [1, 1, 0.75, 0.95, 1], "m_risk": {"low": 1, "medium": 0.75, "high": 0.75}})
    tables = DynamicFusionTables.from_json(old)
    assert tables.m_agree == AgreementMultipliers(agree=1.0, disagree=1.0)
    assert tables.graph_weight(60, Risk.MEDIUM, agreed=False) == tables.graph_weight(60, Risk.MEDIUM)


def test_dynamic_empty_graph_ranking_is_text_only() -> None:
    result = dynamic_fusion([], ["t1", "t2"], n_cand=0, risk=Risk.LOW)
    assert result.mode is FusionMode.TEXT_ONLY and result.graph_weight == 0.0 and result.bucket == 0
    assert result.ids == ["t1", "t2"]
    assert [item.score for item in result.items] == pytest.approx([1 / 61, 1 / 62])


# ---------------------------------------------------------------- tables JSON


def test_tables_json_round_trip(tmp_path: Path) -> None:
    tables = DynamicFusionTables(
        w_bucket=(0.9, 0.7, 0.4, 0.3, 0.1), m_risk=RiskMultipliers(medium=0.5, high=0.0), k=20.0, fitted_on=128
    )
    path = tmp_path / "fusion.json"
    tables.save(path)
    assert DynamicFusionTables.load(path) == tables
    assert json.loads(path.read_text())["m_risk"] == {"low": 1.0, "medium": 0.5, "high": 0.0}
    DynamicFusionTables().save(path)
    assert DynamicFusionTables.load(path) == DynamicFusionTables()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[0.8, 0.6]", "expected a JSON object of fusion tables, got list"),
        ('{"w_bucket": [0.8, 0.6, 0.5, 0.3]}', "w_bucket.4: Field required"),
        ('{"w_bucket": [0.8, 1.5, 0.5, 0.3, 0.2]}', "w_bucket.1: Input should be less than or equal to 1 (got 1.5)"),
        ('{"m_risk": {"low": 1, "medium": 0.7, "high": -0.3}}', "m_risk.high: Input should be greater than or equal"),
        ('{"m_risk": {"low": 1, "mediun": 0.7}}', "m_risk.mediun: Extra inputs are not permitted"),
        ('{"k": 0}', "k: Input should be greater than 0 (got 0)"),
        ('{"k": NaN}', "k: Input should be a finite number"),
        ('{"w_bucket": [0.8, 0.6, 0.5, 0.3, 0.2], "bucket": 3}', "bucket: Extra inputs are not permitted"),
    ],
)
def test_malformed_tables_file_names_file_and_problem(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "bad_tables.json"
    path.write_text(content)
    with pytest.raises(FusionTablesError) as caught:
        DynamicFusionTables.load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in str(caught.value)
    assert caught.value.path == path and caught.value.errors


def test_missing_tables_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(FusionTablesError, match="absent.json: cannot read fusion tables"):
        DynamicFusionTables.load(path)


# ---------------------------------------------------------------- fitting

FILLERS = [f"f{i}" for i in range(98)]


def graph_perfect(gold: str, n_cand: int = 50, risk: Risk = Risk.LOW) -> FusionExample:
    # graph [gold, a]; text [a, f0..f97, gold] (gold at text rank 100). With k = 60, gold beats a iff
    #   w/61 + (1-w)/160 > w/62 + (1-w)/61  <=>  w > 0.9746,   so on a 0.05 grid only w = 1.0 ranks gold first.
    return FusionExample(graph=[gold, "a"], text=["a", *FILLERS, gold], gold={gold}, n_cand=n_cand, risk=risk)


def text_perfect(gold: str, n_cand: int = 50, risk: Risk = Risk.LOW) -> FusionExample:
    # The mirror image: gold first iff w < 0.0254, so only w = 0.0.
    return FusionExample(graph=["a", *FILLERS, gold], text=[gold, "a"], gold={gold}, n_cand=n_cand, risk=risk)


def test_fit_static_prefers_the_perfect_branch() -> None:
    fit = fit_static([graph_perfect("g1"), graph_perfect("g2")])
    assert fit.graph_weight == 1.0 and fit.choice.score == 1.0 and fit.quality.mrr == 1.0
    assert all(score < 1.0 for weight, score in fit.choice.curve if weight < 1.0)
    fit = fit_static([text_perfect("g1"), text_perfect("g2")])
    assert fit.graph_weight == 0.0 and fit.quality.hit_at_1 == 1.0


def test_fit_static_ties_go_to_the_smaller_weight() -> None:
    # Both branches rank the gold first: every weight scores MRR 1, and the smallest grid weight wins.
    both = FusionExample(graph=["g", "x"], text=["g", "y"], gold={"g"})
    assert fit_static([both], grid=[0.9, 0.3, 0.6]).graph_weight == 0.3
    # A custom metric (Hit@1) goes through the same path.
    fit = fit_static([graph_perfect("g")], metric=lambda ranked, gold: hit_at(ranked, gold, 1))
    assert fit.graph_weight == 1.0 and fit.choice.score == 1.0


def test_fit_static_rejects_bad_input() -> None:
    with pytest.raises(FusionError, match="at least one validation example"):
        fit_static([])
    with pytest.raises(FusionError, match=r"graph weight grid values must be in \[0, 1\] \(and finite\); got 1.2"):
        fit_static([graph_perfect("g")], grid=[0.5, 1.2])
    with pytest.raises(FusionError, match="graph weight grid is empty"):
        fit_static([graph_perfect("g")], grid=[])


def test_fit_dynamic_fits_each_bucket_and_keeps_priors_elsewhere() -> None:
    examples = [
        graph_perfect("g1", n_cand=5),
        graph_perfect("g2", n_cand=10),
        text_perfect("t1", n_cand=800),
        text_perfect("t2", n_cand=501),
        FusionExample(graph=[], text=["x"], gold={"x"}, n_cand=60),
    ]  # text-only: no say in bucket 2
    fit = fit_dynamic(examples, min_examples=1)
    assert fit.tables.w_bucket == (1.0, 0.65, 0.5, 0.35, 0.0)
    assert [choice.examples for choice in fit.buckets] == [2, 0, 0, 0, 2]
    assert fit.buckets[2].score is None and fit.tables.fitted_on == 5
    assert fit.tables.m_risk == RiskMultipliers() and fit.risks == {}
    assert fit.score == 1.0 and fit.quality.questions == 5


def test_fit_dynamic_risk_multipliers_from_a_small_grid() -> None:
    # Bucket 0 with prior multipliers (low 1.0, high 0.3): w = 1.0 serves the low-risk query (weight 1.0) and
    # leaves the high-risk one at weight 0.3 (MRR 0.5); nothing does better. Then, with w = 1.0 fixed, the
    # low-risk query needs m = 1.0 and the high-risk one m = 0.0; medium has no query and keeps 0.7.
    examples = [graph_perfect("g", n_cand=5, risk=Risk.LOW), text_perfect("t", n_cand=5, risk=Risk.HIGH)]
    fit = fit_dynamic(examples, risk_grid=[0.0, 0.5, 1.0], min_examples=1)
    assert fit.tables.w_bucket[0] == 1.0 and fit.buckets[0].score == pytest.approx(0.75)
    assert fit.tables.m_risk == RiskMultipliers(low=1.0, medium=0.7, high=0.0)
    assert fit.risks[Risk.MEDIUM].examples == 0 and fit.risks[Risk.HIGH].value == 0.0
    assert fit.score == 1.0


def test_fit_dynamic_agreement_multipliers_from_a_small_grid() -> None:
    # Bucket 0 held at w = 1.0 (a one-value grid). graph_perfect: the graph's first (gold) is off the text's
    # first page, so the branches disagree and only m = 1.0 ranks gold first; text_perfect: the graph's first
    # ("a") is the text's second, they agree, and only m = 0.0 (text order) ranks gold first.
    examples = [graph_perfect("g", n_cand=5), text_perfect("t", n_cand=5)]
    fit = fit_dynamic(examples, grid=[1.0], agree_grid=[0.0, 0.5, 1.0], min_examples=1)
    assert fit.tables.m_agree == AgreementMultipliers(agree=0.0, disagree=1.0)
    assert fit.agreement[True].examples == fit.agreement[False].examples == 1
    assert fit.score == 1.0
    assert fit_dynamic(examples, grid=[1.0], min_examples=1).agreement == {}  # no grid: held at the prior's
    with pytest.raises(FusionError, match="agreement multiplier grid values must be >= 0"):
        fit_dynamic(examples, agree_grid=[-0.5])


def test_a_bucket_or_level_with_too_few_questions_keeps_its_prior() -> None:
    # nine text-perfect questions in bucket 0 would pull its weight to 0.0; below MIN_FIT_EXAMPLES they may not
    few = [text_perfect(f"t{i}", n_cand=5, risk=Risk.HIGH) for i in range(MIN_FIT_EXAMPLES - 1)]
    fit = fit_dynamic(few, risk_grid=[0.0, 1.0], agree_grid=[0.0, 1.0])
    assert fit.tables.w_bucket == DynamicFusionTables().w_bucket and fit.buckets[0].examples == len(few)
    assert fit.buckets[0].score is None and fit.risks[Risk.HIGH].score is None
    assert fit.tables.m_risk == RiskMultipliers() and fit.tables.m_agree == AgreementMultipliers()
    enough = [*few, text_perfect("last", n_cand=5, risk=Risk.HIGH)]
    assert fit_dynamic(enough).tables.w_bucket[0] == 0.0


def test_fit_dynamic_rejects_bad_input() -> None:
    with pytest.raises(FusionError, match="at least one validation example"):
        fit_dynamic([])
    with pytest.raises(FusionError, match="n_cand must be >= 0; got -3"):
        fit_dynamic([graph_perfect("g", n_cand=-3)])
    with pytest.raises(FusionError, match=r"risk multiplier grid values must be >= 0 \(and finite\); got -1"):
        fit_dynamic([graph_perfect("g")], risk_grid=[-1.0])


def test_the_graphs_first_target_stays_first_when_its_score_leads_by_the_margin() -> None:
    # the text puts b first; RRF at equal weights then ranks b over a, whatever the graph's scores say
    fused = static_fusion(["a", "b", "c"], ["b", "c", "a"], 0.5)
    assert fused.ids[0] == "b"
    kept = graph_lead_first(fused, ["a", "b", "c"], [1.36, 1.14, 1.13], 0.1)
    assert kept.ids == ["a", "b", "c"] and kept.note is not None and "0.220" in kept.note
    assert [item.ranks for item in kept.items] == [item.ranks for item in sorted(fused.items, key=lambda i: i.id)]
    # a lead under the margin leaves fusion's order; so does a graph already first, or an empty graph
    assert graph_lead_first(fused, ["a", "b", "c"], [1.0, 0.992, 0.99], 0.1) == fused
    alone = graph_lead_first(fused, ["c"], [0.7], 0.1)  # no second target: nothing to lead, it leads
    assert alone.ids[0] == "c" and alone.note is not None and "no second target" in alone.note
    text_only = static_fusion([], ["b", "a"], 0.5)
    assert graph_lead_first(text_only, [], [], 0.1) == text_only


def test_the_graphs_first_target_stays_first_when_it_alone_holds_the_relevance_texts_words() -> None:
    fused = static_fusion(["a", "b", "c"], ["b", "c", "a"], 0.5)  # the text puts b first
    kept = keyword_lead_first(fused, ["a", "b", "c"], [0.24, 0.0, 0.0])
    assert kept.ids == ["a", "b", "c"] and kept.note is not None and "alone holds" in kept.note
    assert [item.ranks for item in kept.items] == [item.ranks for item in sorted(fused.items, key=lambda i: i.id)]
    # another target holding the words too, or the first holding none, leaves fusion's order
    assert keyword_lead_first(fused, ["a", "b", "c"], [0.24, 0.0, 0.1]) == fused
    assert keyword_lead_first(fused, ["a", "b", "c"], [0.0, 0.0, 0.0]) == fused
    # as does a graph ranking fusion did not use, or scores that do not match it
    text_only = static_fusion([], ["b", "a"], 0.5)
    assert keyword_lead_first(text_only, [], []) == text_only
    assert keyword_lead_first(fused, ["a", "b", "c"], [0.24]) == fused


def test_targets_whose_name_holds_the_plans_keywords_come_before_every_other() -> None:
    # "which spastic diseases ...": the text puts "c" (no keyword in its name) first, "x" (not in the graph) too
    fused = static_fusion(["a", "b", "c"], ["c", "x", "b"], 0.5)
    assert fused.ids[0] == "c"
    kept = named_first(fused, ["a", "b"])
    assert sorted(kept.ids[:2]) == ["a", "b"] and kept.ids[2:] == [i for i in fused.ids if i in ("c", "x")]
    assert kept.ids[:2] == [i for i in fused.ids if i in ("a", "b")]  # each group in fused order
    assert kept.note is not None and "name holds the plan's keywords" in kept.note
    # no holder, holders already first, or no graph ranking fused: fusion's order
    assert named_first(fused, []) == fused
    assert named_first(kept, ["a", "b"]) == kept
    text_only = static_fusion([], ["b", "a"], 0.5)
    assert named_first(text_only, ["a"]) == text_only


def test_targets_the_graph_scores_alike_keep_the_graphs_order_in_the_places_fusion_gave_them() -> None:
    # the graph ties a, b and c (1.0) and ranks d lower; the text prefers c, then d, then b
    fused = static_fusion(["a", "b", "c", "d"], ["c", "d", "b"], 0.5)
    assert fused.ids == ["c", "b", "d", "a"]
    kept = graph_ties_in_graph_order(fused, ["a", "b", "c", "d"], [1.0, 1.0, 1.0, 0.4])
    # the block holds places 1, 2 and 4, filled in the graph's order; d keeps its place
    assert kept.ids == ["a", "b", "d", "c"] and kept.note is not None and "alike" in kept.note
    # no tie, a tie already in the graph's order, or no graph ranking: fusion's order
    assert graph_ties_in_graph_order(fused, ["a", "b", "c", "d"], [1.0, 0.9, 0.8, 0.4]) == fused
    in_order = static_fusion(["a", "b"], ["a", "b"], 0.5)
    assert graph_ties_in_graph_order(in_order, ["a", "b"], [1.0, 1.0]) == in_order
    text_only = static_fusion([], ["b", "a"], 0.5)
    assert graph_ties_in_graph_order(text_only, [], []) == text_only
