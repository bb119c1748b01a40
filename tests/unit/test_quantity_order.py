"""Superlative questions rank by a quantity the target type holds: which properties are quantities (read from
values), which way a superlative ranks, which property the words name, and the plan the heuristic writes."""

from __future__ import annotations

import pytest

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.plan import Plan, PropertyOrder, parse_plan, plan_json_schema
from grasp_agent.graph_branch.quantity_order import read_order
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.property_kinds import key_property, quantity, quantity_property
from grasp_agent.skb.schema import SkbSchema
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (3, 3.0),
        (2.5, 2.5),
        ("66,987,244", 66_987_244.0),
        (" 1 250.5 ", 1250.5),
        ("1\u202f000", 1000.0),
        ("-3e2", -300.0),
        ("0", 0.0),
        ("01001", None),  # a FIPS code keeps its leading zero
        ("+33", None),  # a dialling code
        ("12 km", None),
        ("48.85, 2.35", None),  # coordinates
        ("", None),
        (None, None),
        (True, None),
        (float("nan"), None),
        (["1"], None),
    ],
)
def test_a_quantity_is_a_number_or_text_written_as_one_never_a_code(value: object, number: float | None) -> None:
    assert quantity(value) == number


def test_a_property_is_a_quantity_when_nine_in_ten_values_are_and_they_differ() -> None:
    assert quantity_property(["1,000", "250", None, "3"] * 3)
    assert not quantity_property(["1,000", "250", "n/a"])  # one in three is a word
    assert not quantity_property(["7", "7", "7"])  # orders nothing
    assert not quantity_property(["01001", "01003", "01005"])
    assert not quantity_property([None, ""])


def test_a_key_is_a_short_code_each_node_holds_its_own_of() -> None:
    assert key_property(["FRA", "DEU", "JPN", "US-GA", None])
    assert not key_property(["FRA", "FRA", "DEU"])  # shared: it names no one node
    assert not key_property(["12", "13", "14"])  # numbers are quantities or codes of digits, not names
    assert not key_property(["A long description of the node that goes on", "Another one"])
    assert not key_property(["FRA", None, None, None])  # most nodes lack it
    assert not key_property([["FRA", "FR"], ["DEU"]])  # lists are synonyms, declared in the schema


def test_codes_of_digits_and_words_are_keys_and_a_few_long_values_do_not_spoil_them() -> None:
    assert key_property(["+254", "+1-268", "+33", "+49"])  # a plus marks a code, not a number
    assert key_property(["01001", "01003", "01005"])  # so does a leading zero
    assert not key_property(["254", "268", "33", "49"])  # plain numbers are quantities
    assert not key_property(["-26.2, 28.0", "40.7, -74.0", "51.5, -0.1"])  # pairs of numbers are no codes
    demonyms = [f"Demonym{i}" for i in range(40)] + ["South Georgia and the South Sandwich Islander"]
    assert key_property(demonyms)  # one long value in 41
    long_ones = ["A long description of the node that goes on", "Another description that is just as long"]
    assert not key_property(demonyms[:10] + long_ones)  # two in twelve: descriptions, not keys


@pytest.mark.parametrize(
    ("frame", "prop", "descending"),
    [
        ("What is the most populous city in", "population", True),
        ("Which country has the largest area among", "area_km2", True),
        ("smallest country by area bordering", "area_km2", False),
        ("Biggest city in", "population", True),  # no property named: the first quantity
        ("the least populated region of", "population", False),
    ],
)
def test_a_superlative_reads_its_direction_and_the_property_its_words_name(
    frame: str, prop: str, descending: bool
) -> None:
    read = read_order(frame, ("population", "area_km2"))
    assert read is not None
    assert read.order == PropertyOrder(property=prop, descending=descending)


def test_no_order_without_a_superlative_or_without_a_quantity() -> None:
    assert read_order("Which cities are in", ("population",)) is None
    assert read_order("What is the largest gene of", ()) is None


GEO = SkbSchema.model_validate(
    {
        "name": "geo",
        "node_types": [
            {"label": "Country", "text_fields": ["population", "area_km2"]},
            {"label": "City", "text_fields": ["population"]},
        ],
        "relation_types": [{"type": "LOCATED_IN", "pairs": [{"source": "City", "target": "Country"}]}],
    }
)
GEO_CONTEXT = SkbContext(
    schema=GEO,
    pattern_counts={("City", "LOCATED_IN", "Country"): 500},
    label_counts={"Country": 20, "City": 500},
    quantity_properties={"Country": ("population", "area_km2"), "City": ("population",)},
)


def test_the_planner_orders_a_superlative_over_the_target_types_quantity() -> None:
    table = EntityTable((_row("Finland", "Country", 1.0),))
    plan = HeuristicPlanner(GEO_CONTEXT).build("What is the most populous city in Finland?", table)
    assert plan.target.type == "City"
    assert [hop.relation for hop in plan.hops] == ["LOCATED_IN"]
    assert plan.order == PropertyOrder(property="population", descending=True)
    # the order travels in the JSON the procedure reads, and back
    assert parse_plan(plan.to_json()).order == plan.order
    plain = HeuristicPlanner(GEO_CONTEXT).build("Which cities are in Finland?", table)
    assert plain.order is None and '"order"' not in plain.to_json()


def test_a_superlative_inside_a_name_orders_nothing() -> None:
    table = EntityTable((_row("Greatest Hits Island", "Country", 1.0),))
    plan = HeuristicPlanner(GEO_CONTEXT).build("Which cities are in Greatest Hits Island?", table)
    assert plan.order is None


def test_an_skb_without_quantities_never_orders() -> None:
    table = EntityTable((_row("Seizure", "Phenotype", 1.0),))
    plan = HeuristicPlanner(HPO_CONTEXT).build("Which disease most often shows Seizure?", table)
    assert plan.order is None


def test_the_llm_schema_offers_order_only_over_the_skbs_quantities() -> None:
    schema = plan_json_schema(["City"], ["LOCATED_IN"], quantities=["population"])
    assert schema["$defs"]["PropertyOrder"]["properties"]["property"]["enum"] == ["population"]
    bare = plan_json_schema(["City"], ["LOCATED_IN"])
    assert "order" not in bare["properties"] and "PropertyOrder" not in bare["$defs"]
    with pytest.raises(ValueError, match="pattern"):
        Plan.model_validate(
            {"target": {"var": "t", "type": "City"}, "relevance_text": "x", "order": {"property": "a b"}}
        )
