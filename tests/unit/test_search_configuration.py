"""Which fusion/rerank values a search uses and where each came from: environment > fitted locally > packaged >
defaults; reranking on by default only with measured evidence (pipeline.configuration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grasp_agent.config import Settings
from grasp_agent.fusion.tables import DynamicFusionTables, RerankEvidence
from grasp_agent.pipeline.configuration import (
    FusionTablesChoice,
    choose_fusion_tables,
    packaged_fusion_tables_path,
    resolve_configuration,
)

RERANKER = "bi-encoder:local:all-MiniLM-L6-v2:max256"
EMBEDDER = "local:all-MiniLM-L6-v2:max256"


def _tables(gain: float, reranker: str = RERANKER) -> DynamicFusionTables:
    evidence = RerankEvidence(reranker=reranker, questions=206, mrr_fused=0.58, mrr_reranked=0.58 + gain)
    return DynamicFusionTables(
        fitted_on=206, static_graph_weight=0.6, rerank_weight=0.05, policy="dynamic", rerank=evidence
    )


def _fitted(tables: DynamicFusionTables) -> FusionTablesChoice:
    return FusionTablesChoice(tables, "fitted locally", Path("/x/.grasp/fusion/hpo.json"))


def test_defaults_without_fitted_tables() -> None:
    config = resolve_configuration(
        Settings(), FusionTablesChoice(DynamicFusionTables(), "built-in priors", None), RERANKER
    )
    assert (config.fusion_policy.value, config.fusion_policy.source) == ("static", "default")
    assert (config.static_graph_weight.value, config.static_graph_weight.source) == (0.5, "default")
    assert (config.rerank_weight.value, config.rerank_weight.source) == (0.5, "default")
    assert config.rerank_by_default.value is False and "no measured gain" in config.rerank_by_default.source
    assert config.dynamic_tables.value == "priors, not fitted"


def test_fitted_values_apply_and_name_their_file() -> None:
    config = resolve_configuration(Settings(), _fitted(_tables(gain=0.002)), RERANKER)
    assert config.static_graph_weight.value == 0.6 and config.rerank_weight.value == 0.05
    assert config.fusion_policy.value == "dynamic"
    assert config.static_graph_weight.source == "fitted locally: /x/.grasp/fusion/hpo.json"
    # a gain under one MRR point does not switch reranking on
    assert config.rerank_by_default.value is False
    assert (
        "gained less than 0.01 MRR on 206 valid questions: MRR 0.580 fused -> 0.582" in config.rerank_by_default.source
    )


def test_a_reranker_that_helped_is_on_by_default() -> None:
    config = resolve_configuration(Settings(), _fitted(_tables(gain=0.03)), RERANKER)
    assert config.rerank_by_default.value is True and config.rerank_by_default.source.startswith("helped on 206")


def test_evidence_about_another_reranker_does_not_count() -> None:
    config = resolve_configuration(Settings(), _fitted(_tables(gain=0.2, reranker="cross-encoder:other")), RERANKER)
    assert config.rerank_by_default.value is False


def test_explicit_settings_win_and_say_so() -> None:
    settings = Settings(fusion="static", fusion_graph_weight=0.3, rerank_weight=0.2, reranker="bi-encoder")
    config = resolve_configuration(settings, _fitted(_tables(gain=0.0)), RERANKER)
    assert (config.fusion_policy.value, config.fusion_policy.source) == ("static", "GRASP_FUSION")
    assert (config.static_graph_weight.value, config.static_graph_weight.source) == (0.3, "GRASP_FUSION_GRAPH_WEIGHT")
    assert (config.rerank_weight.value, config.rerank_weight.source) == (0.2, "GRASP_RERANK_WEIGHT")
    assert config.rerank_by_default.value is True  # a reranker chosen explicitly is meant to run
    unset = resolve_configuration(Settings(reranker="none"), _fitted(_tables(0.1)), None)
    assert unset.rerank_by_default.value is False
    # auto names no particular reranker, so even said explicitly it leaves the decision to the evidence
    auto = resolve_configuration(Settings(reranker="auto"), _fitted(_tables(gain=0.0)), RERANKER)
    assert auto.rerank_by_default.value is False and "gained less than" in auto.rerank_by_default.source


def test_every_value_has_a_line_and_a_json_entry() -> None:
    config = resolve_configuration(Settings(), _fitted(_tables(gain=0.0)), RERANKER)
    assert len(config.lines()) == len(config.as_dict()) == 10
    assert config.as_dict()["rerank_by_default"]["value"] is False
    assert config.lines()[-3] == "graph lead kept first: off (default)"
    lead = resolve_configuration(Settings(fusion_graph_lead=0.02), _fitted(_tables(gain=0.0)), RERANKER)
    assert lead.lines()[-3] == "graph lead kept first: from a score lead of 0.02 (GRASP_FUSION_GRAPH_LEAD)"
    keyword = "graph's first kept first when it alone holds the relevance text's words"
    assert config.lines()[-2] == f"{keyword}: on (default)"
    assert config.lines()[-1] == "targets the graph scores alike kept in its order: off (default)"
    turned = resolve_configuration(
        Settings(fusion_keyword_lead=False, fusion_graph_ties=True), _fitted(_tables(gain=0.0)), RERANKER
    )
    assert turned.lines()[-2] == f"{keyword}: off (GRASP_FUSION_KEYWORD_LEAD)" and not turned.keyword_lead.value
    assert turned.lines()[-1] == "targets the graph scores alike kept in its order: on (GRASP_FUSION_GRAPH_TIES)"


def test_tables_are_chosen_local_then_packaged_then_priors(tmp_path: Path) -> None:
    settings = Settings(project_root=tmp_path)
    packaged = packaged_fusion_tables_path("hpo", EMBEDDER)
    if packaged.is_file():
        chosen = choose_fusion_tables(settings, "hpo", EMBEDDER)
        assert chosen.origin == "packaged" and chosen.tables == DynamicFusionTables.load(packaged)
    assert choose_fusion_tables(settings, "another-skb", EMBEDDER).origin == "built-in priors"
    local = tmp_path / ".grasp" / "fusion" / "hpo.json"
    local.parent.mkdir(parents=True)
    _tables(0.0).save(local)
    assert choose_fusion_tables(settings, "hpo", EMBEDDER).origin == "fitted locally"
    # an explicit GRASP_FUSION_TABLES that does not exist means: no fitted tables at all, not the packaged ones
    missing = settings.model_copy(update={"fusion_tables": tmp_path / "nothing.json"})
    assert choose_fusion_tables(missing, "hpo", EMBEDDER).origin == "built-in priors"


def test_the_hpo_tables_ship_with_the_package() -> None:
    path = packaged_fusion_tables_path("hpo", EMBEDDER)
    tables = DynamicFusionTables.load(path)
    assert tables.fitted_on > 100 and tables.static_graph_weight is not None and tables.rerank is not None
    assert tables.embedder == EMBEDDER


@pytest.mark.parametrize("gain", [-0.1, 0.0, 0.0099])
def test_small_or_negative_gains_do_not_help(gain: float) -> None:
    assert not _tables(gain).rerank.helps  # type: ignore[union-attr]
