"""What `grasp train fusion` saves, on hand-made fits: the policy that did better on valid (static on a tie), the
tables carrying the static weight and the embedder, the reranker's weight with its evidence."""

from __future__ import annotations

import pytest

from grasp_agent.fusion.fitting import FusionExample, RerankExample, fit_rerank_weight
from grasp_agent.fusion.tables import DynamicFusionTables
from grasp_agent.training.fit import fit_fusion
from grasp_agent.training.fusion_fit import better_policy, fitted_tables, with_rerank_weight
from tests.unit.test_fusion import graph_perfect, text_perfect

# Small n_cand: the graph branch is right; large: the text branch is. Only per-bucket weights serve both.
SPLIT_BY_BUCKET = [
    graph_perfect("g1", n_cand=5),
    graph_perfect("g2", n_cand=10),
    text_perfect("t1", n_cand=800),
    text_perfect("t2", n_cand=501),
]


def test_dynamic_is_chosen_only_when_it_beats_static_on_valid() -> None:
    fits = fit_fusion(SPLIT_BY_BUCKET, k=60.0, min_examples=1)
    assert fits.dynamic.quality.mrr == 1.0 > fits.static.quality.mrr
    assert better_policy(fits) == "dynamic"
    both_right = [FusionExample(graph=["g", "x"], text=["g", "y"], gold={"g"}, n_cand=n) for n in (5, 800)]
    tied = fit_fusion(both_right, k=60.0, min_examples=1)
    assert tied.dynamic.quality.mrr == tied.static.quality.mrr == 1.0
    assert better_policy(tied) == "static"


def test_fitted_tables_carry_the_static_weight_the_policy_and_the_embedder() -> None:
    fits = fit_fusion(SPLIT_BY_BUCKET, k=60.0, min_examples=1)
    tables = fitted_tables(fits, "hashing-256")
    assert tables.w_bucket == (1.0, 0.65, 0.5, 0.35, 0.0) and tables.fitted_on == 4
    assert tables.static_graph_weight == fits.static.graph_weight
    assert (tables.policy, tables.embedder) == ("dynamic", "hashing-256")
    assert tables.rerank_weight is None and tables.rerank is None  # until the reranker's weight is fitted


def test_the_rerank_weight_is_saved_with_what_it_gained_on_valid() -> None:
    helpful = [RerankExample(reranker=["g", "a", "b"], fused=["a", "b", "g"], gold={"g"})]
    choice = fit_rerank_weight(helpful, grid=[0.0, 0.25, 0.5, 0.75, 1.0], k=1.0)  # 0.75: see test_fusion_rerank_weight
    tables = with_rerank_weight(
        fitted_tables(fit_fusion(SPLIT_BY_BUCKET, k=60.0, min_examples=1), "e"), choice, "listwise", 1
    )
    assert tables.rerank_weight == 0.75 and tables.policy == "dynamic"
    assert tables.rerank is not None
    assert (tables.rerank.reranker, tables.rerank.questions) == ("listwise", 1)
    assert tables.rerank.mrr_fused == pytest.approx(1 / 3) and tables.rerank.mrr_reranked == pytest.approx(1.0)
    assert tables.rerank.helps
    assert DynamicFusionTables.from_json(tables.to_json()) == tables  # what searches read back
    harmful = fit_rerank_weight(
        [RerankExample(reranker=["b", "a"], fused=["a", "b"], gold={"a"})], grid=[0.0, 0.5, 1.0], k=1.0
    )
    kept = with_rerank_weight(DynamicFusionTables(), harmful, "listwise", 1)
    assert kept.rerank_weight == 0.0 and kept.rerank is not None and not kept.rerank.helps


def test_fusion_values_are_judged_on_questions_they_were_not_fitted_on() -> None:
    from grasp_agent.fusion.rrf import FusionError
    from grasp_agent.training.fit import out_of_fold

    # the bucket pattern holds in every fold: per-bucket weights fitted on the others rank each held-out one right
    examples = [graph_perfect(f"g{i}", n_cand=5) if i % 2 else text_perfect(f"t{i}", n_cand=800) for i in range(10)]
    judged = out_of_fold(examples, k=60.0, default_weight=0.5, folds=5, min_examples=1)
    assert judged.dynamic == 1.0 > judged.static
    assert judged.folds == 5 and 0.0 < judged.default < 1.0
    # the same answer whichever run: folds are by position
    assert out_of_fold(examples, k=60.0, default_weight=0.5, folds=5, min_examples=1) == judged
    # a held-out question the fitted values never saw the like of: out of fold, the table that fitted its own
    # questions perfectly is no better than one weight
    lone = [*examples[:4], graph_perfect("odd", n_cand=100)]
    assert fit_fusion(lone, k=60.0, min_examples=1).dynamic.quality.mrr == 1.0
    assert out_of_fold(lone, k=60.0, default_weight=0.5, folds=5, min_examples=1).dynamic < 1.0
    with pytest.raises(FusionError, match="at least 5"):
        out_of_fold(examples[:3], k=60.0, default_weight=0.5)
