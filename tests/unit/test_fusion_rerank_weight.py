"""The last RRF's weight fitted on validation examples, and where fitted weights take effect."""

from __future__ import annotations

import pytest

from grasp_agent.fusion.fitting import RerankExample, fit_rerank_weight
from grasp_agent.fusion.rrf import FusionError
from grasp_agent.fusion.tables import DynamicFusionTables


def test_a_reranker_that_finds_the_answer_earns_weight_and_one_that_loses_it_gets_none() -> None:
    # fused order has the answer 3rd; the reranker puts it 1st
    helpful = [RerankExample(reranker=["g", "a", "b"], fused=["a", "b", "g"], gold={"g"})]
    choice = fit_rerank_weight(helpful, grid=[0.0, 0.25, 0.5, 0.75, 1.0], k=1.0)
    # k=1: w=0 gives fused order (RR 1/3); at w=0.5, g scores .5/2 + .5/4 = .375, a .5/3 + .5/2 = .417: RR 1/2;
    # at w=0.75, g .375 + .0625 = .4375 beats a .25 + .125 = .375: RR 1; the smallest such w wins
    assert choice.value == 0.75 and choice.score == pytest.approx(1.0)
    assert dict(choice.curve)[0.0] == pytest.approx(1 / 3) and dict(choice.curve)[0.5] == pytest.approx(0.5)
    harmful = [RerankExample(reranker=["b", "a"], fused=["a", "b"], gold={"a"})]
    assert fit_rerank_weight(harmful, grid=[0.0, 0.5, 1.0], k=1.0).value == 0.0
    with pytest.raises(FusionError, match="at least one validation example"):
        fit_rerank_weight([])


def test_fitted_weights_round_trip_with_the_tables() -> None:
    tables = DynamicFusionTables().model_copy(update={"static_graph_weight": 0.6, "rerank_weight": 0.15})
    again = DynamicFusionTables.from_json(tables.to_json())
    assert again.static_graph_weight == 0.6 and again.rerank_weight == 0.15
    assert DynamicFusionTables.from_json("{}").rerank_weight is None  # older files: settings decide
