"""The plan procedures on real HPO data: hand-written plans whose answers the raw files determine."""

from __future__ import annotations

import json

import pytest
from neo4j import Driver

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.plan import Plan

pytestmark = pytest.mark.neo4j


def _plan(**fields: object) -> str:
    return Plan.model_validate(fields).to_json()


def test_link_finds_the_phenotype_by_its_name(hpo_slice: object, driver: Driver, embedder: GraspEmbedder) -> None:
    vector = embedder.with_max_tokens(64).embed_query("epileptic spasms")
    records, _, _ = driver.execute_query(
        "CALL grasp.link($v, 'Phenotype', 'name') YIELD nodeId, score RETURN nodeId, score", v=vector
    )
    assert records[0]["nodeId"] == "HP:0011097"
    assert 0.9 < records[0]["score"] <= 1.0


def test_diseases_with_a_phenotype_and_a_gene(hpo_slice: object, driver: Driver, embedder: GraspEmbedder) -> None:
    # OMIM:619340 (DEE 96) presents Epileptic spasm (phenotype.hpoa) and is associated with NSF
    # (genes_to_phenotype.txt): with both anchors it must come first.
    plan = _plan(
        anchors=[
            {"var": "p", "type": "Phenotype", "text": "Epileptic spasm"},
            {"var": "g", "type": "Gene", "text": "NSF"},
        ],
        hops=[
            {"source": "p", "relation": "HAS_PHENOTYPE", "target": "t"},
            {"source": "g", "relation": "ASSOCIATED_WITH", "target": "t"},
        ],
        target={"var": "t", "type": "Disease"},
    )
    names = embedder.with_max_tokens(64)
    vectors = {"p": names.embed_query("Epileptic spasm"), "g": names.embed_query("NSF")}
    checked, _, _ = driver.execute_query("CALL grasp.plan.validate($plan)", plan=plan)
    assert checked[0]["valid"], checked[0]["errors"]
    records, _, _ = driver.execute_query(
        "CALL grasp.plan.execute($plan, $vectors, null, 10) YIELD nodeId, anchorScore, witness "
        "RETURN nodeId, anchorScore, witness",
        plan=plan,
        vectors=vectors,
    )
    assert records[0]["nodeId"] == "OMIM:619340"
    # both anchors must hold (a pattern, not a union): in the slice no other disease has both
    assert len(records) == 1
    assert records[0]["anchorScore"] > 1.9  # two near-exact name links, summed
    witness_names = {step.get("name") for step in records[0]["witness"] if isinstance(step, dict)}
    assert {"Epileptic spasm", "NSF", "Developmental and epileptic encephalopathy 96"} <= witness_names


def test_compiled_query_gives_the_same_ranking_as_execute(
    hpo_slice: object, driver: Driver, embedder: GraspEmbedder
) -> None:
    plan = _plan(
        anchors=[{"var": "p", "type": "Phenotype", "text": "Epileptic spasm"}],
        hops=[{"source": "p", "relation": "HAS_PHENOTYPE", "target": "t"}],
        target={"var": "t", "type": "Disease"},
    )
    vector = embedder.with_max_tokens(64).embed_query("Epileptic spasm")
    executed, _, _ = driver.execute_query(
        "CALL grasp.plan.execute($plan, {p: $v}, null, 100, {denseWeight: 0.0}) YIELD nodeId, anchorScore "
        "RETURN nodeId, anchorScore",
        plan=plan,
        v=vector,
    )
    linked, _, _ = driver.execute_query(
        "CALL grasp.link($v, 'Phenotype', 'name') YIELD nodeId, score "
        "RETURN collect({id: nodeId, score: score}) AS bindings",
        v=vector,
    )
    compiled, _, _ = driver.execute_query(
        "CALL grasp.plan.compile($plan, {p: $b}) YIELD query, params RETURN query, params",
        plan=plan,
        b=linked[0]["bindings"],
    )
    direct, _, _ = driver.execute_query(compiled[0]["query"], compiled[0]["params"])
    assert [(r["nodeId"], round(r["anchorScore"], 6)) for r in direct] == [
        (r["nodeId"], round(r["anchorScore"], 6)) for r in executed
    ]
    # every disease annotated with the phenotype itself is found (72 in the raw phenotype.hpoa, aspect P)
    assert len(executed) == 72


def test_cypher_in_the_plan_is_data(hpo_slice: object, driver: Driver) -> None:
    hostile = json.dumps(
        {
            "anchors": [{"var": "p", "type": "Phenotype", "text": "'}) DETACH DELETE n //"}],
            "hops": [{"source": "p", "relation": "HAS_PHENOTYPE", "target": "t"}],
            "target": {"var": "t", "type": "Disease`) DETACH DELETE n //"},
        }
    )
    before, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS c")
    checked, _, _ = driver.execute_query("CALL grasp.plan.validate($plan)", plan=hostile)
    assert not checked[0]["valid"]
    after, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS c")
    assert after[0]["c"] == before[0]["c"]
