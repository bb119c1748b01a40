import json

import pytest
from pydantic import ValidationError

from grasp_agent.graph_branch.plan import Plan, PlanError, Risk, parse_plan, plan_json_schema

EXAMPLE = {
    "anchors": [{"var": "a1", "type": "Phenotype", "text": "epileptic spasm", "match_mode": "name"}],
    "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}],
    "target": {"var": "t", "type": "Disease"},
    "relevance_text": "early-onset forms",
    "n_cand": 50,
    "risk": "low",
}


def test_the_documented_example_parses_and_round_trips() -> None:
    plan = parse_plan("Here is the plan:\n" + json.dumps(EXAMPLE) + "\nHope this helps.")
    assert plan.risk is Risk.LOW and plan.hops[0].relation == "HAS_PHENOTYPE"
    assert json.loads(plan.to_json()) == EXAMPLE


@pytest.mark.parametrize(
    "change,problem",
    [
        ({"risk": "extreme"}, "risk"),
        ({"n_cand": -1}, "n_cand"),
        ({"target": {"var": "t", "type": "Disease`) DETACH DELETE n //"}}, "target.type"),
        ({"anchors": [{"var": "a1", "type": "Phenotype", "text": "x", "match_mode": "fuzzy"}]}, "anchors.0.match_mode"),
        ({"surprise": 1}, "surprise"),
        ({"anchors": [EXAMPLE["anchors"][0], EXAMPLE["anchors"][0]]}, "anchor variables must be distinct"),
        ({"target": {"var": "a1", "type": "Disease"}}, "is also an anchor"),
        ({"target": {"var": "b_t", "type": "Disease"}}, "target.var"),
        ({"hops": [{"source": "a1", "relation": "IS_A", "target": "t", "direction": "down"}]}, "hops.0.direction"),
    ],
)
def test_malformed_plans_name_each_problem(change: dict[str, object], problem: str) -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(json.dumps({**EXAMPLE, **change}))
    assert any(problem in line for line in caught.value.errors), caught.value.errors


def test_no_json_and_broken_json_are_plan_errors() -> None:
    with pytest.raises(PlanError, match="contains no JSON object"):
        parse_plan("I cannot answer that.")
    with pytest.raises(PlanError, match="not valid JSON"):
        parse_plan('{"anchors": [')


def test_a_plan_without_hops_needs_something_to_rank_by() -> None:
    assert parse_plan(json.dumps({"target": {"var": "t", "type": "Disease"}, "relevance_text": "rare"})).hops == ()
    with pytest.raises(PlanError, match="without hops"):
        parse_plan(json.dumps({"target": {"var": "t", "type": "Disease"}}))


def test_json_schema_is_published_for_constrained_decoding() -> None:
    schema = Plan.json_schema()
    assert schema["required"] == ["target"]
    assert set(schema["properties"]) == {
        "anchors",
        "hops",
        "target",
        "relevance_text",
        "n_cand",
        "risk",
        "order",
        "name_contains",
    }
    assert schema["$defs"]["Risk"]["enum"] == ["low", "medium", "high"]
    # the SKB-narrowed schema the LLM planners decode with leaves name words out (not measured with them yet)
    assert "name_contains" not in plan_json_schema(["Disease"], ["HAS_PHENOTYPE"])["properties"]
    with pytest.raises(ValidationError, match="must not be blank"):
        Plan.model_validate({**EXAMPLE, "name_contains": ["  "]})


def test_a_direction_is_written_only_when_the_hop_has_one() -> None:
    directed = {**EXAMPLE, "hops": [{"source": "t", "relation": "IS_A", "target": "a1", "direction": "out"}]}
    plan = parse_plan(json.dumps(directed))
    assert json.loads(plan.to_json()) == directed
    assert plan.hops[0].stored_from("t") is True and plan.hops[0].stored_from("a1") is False
    undirected = parse_plan(json.dumps({**EXAMPLE, "hops": [{**EXAMPLE["hops"][0], "direction": "any"}]}))
    assert json.loads(undirected.to_json()) == EXAMPLE and undirected.hops[0].stored_from("a1") is None
