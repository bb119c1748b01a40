"""Path-Bank construction on the real HPO slice: GDS PPR corridor, Yen inside it, meta-paths of the paths."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from grasp_agent.adapath.bank_build import BankConfig, BankQuery, PathBankBuilder
from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder

pytestmark = pytest.mark.neo4j

SPASM, NSF, GAD1 = "HP:0011097", "NCBIGene:4905", "NCBIGene:2571"
DEE96 = "OMIM:619340"  # Developmental and epileptic encephalopathy 96: presents epileptic spasm; NSF is its gene


def _adapath_graphs(driver: Driver) -> list[str]:
    records, _, _ = driver.execute_query("CALL gds.graph.list() YIELD graphName "
                                         "WHERE graphName STARTS WITH 'adapath_' RETURN graphName")
    return [record["graphName"] for record in records]


def test_paths_run_from_the_topic_to_the_answers_and_abstract_to_meta_paths(
        hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder) -> None:
    query = BankQuery("Which genes are associated with diseases that present epileptic spasm?", (SPASM,),
                      (NSF, GAD1))
    with PathBankBuilder(driver, test_settings.neo4j_database, hpo_slice.schema(), embedder) as builder:
        found = builder.paths_for(query)
        again = builder.paths_for(query)
    assert found.paths and found.missing_ids == ()
    assert 2 < found.corridor_nodes <= BankConfig().corridor_size + 3
    for path in found.paths:
        assert path.node_ids[0] == SPASM and path.node_ids[-1] in (NSF, GAD1)
        assert 1 <= path.meta_path.hops <= 3 and path.meta_path.start_label == "Phenotype"
        assert path.meta_path.answer_label == "Gene" and path.cost > 0
    signatures = [meta.signature for meta in found.meta_paths]
    assert "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)<-[:ASSOCIATED_WITH]-(:Gene)" in signatures
    # The stored direction is read back: genes point at phenotypes, so the 1-hop path walks against it.
    assert "(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)" in signatures
    assert [p.node_ids for p in again.paths] == [p.node_ids for p in found.paths]  # deterministic
    assert _adapath_graphs(driver) == []  # every projection dropped


def test_the_reverse_question_finds_the_forward_meta_path(
        hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder) -> None:
    query = BankQuery("Which phenotypes does developmental and epileptic encephalopathy 96 present?", (DEE96,),
                      (SPASM,))
    with PathBankBuilder(driver, test_settings.neo4j_database, hpo_slice.schema(), embedder,
                         BankConfig(corridor_size=50, paths_per_answer=2)) as builder:
        found = builder.paths_for(query)
    assert found.meta_paths[0].signature == "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)"
    assert found.paths[0].node_ids == (DEE96, SPASM)


def test_unknown_ids_are_reported_and_yield_no_paths(
        hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder) -> None:
    with PathBankBuilder(driver, test_settings.neo4j_database, hpo_slice.schema(), embedder) as builder:
        found = builder.paths_for(BankQuery("anything", ("HP:9999999",), (NSF,)))
    assert found.missing_ids == ("HP:9999999",) and found.paths == []
    assert _adapath_graphs(driver) == []
