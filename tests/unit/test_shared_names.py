"""A name several types share (issue #31, 4e): the type a word next to the name gives, else the type with the
better route to the asked type; never the first type listed by chance."""

from __future__ import annotations

import pytest

from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.procedure_calls import NodeLink
from grasp_agent.graph_branch.schema_paths import named_types
from grasp_agent.graph_branch.shared_names import better_routed, named_type_near, tied_types
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.schema import SkbSchema

GEO = SkbSchema.model_validate(
    {
        "name": "geo",
        "node_types": [
            {"label": "Country", "aliases": ["nation"]},
            {"label": "Subdivision", "aliases": ["state", "province", "canton"]},
            {"label": "County"},
            {"label": "City", "aliases": ["town", "capital"]},
            {"label": "Currency"},
            {"label": "Region", "aliases": ["sub-region"]},
        ],
        "relation_types": [
            {
                "type": "LOCATED_IN",
                "pairs": [
                    {"source": "City", "target": "Country"},
                    {"source": "City", "target": "Subdivision"},
                    {"source": "Subdivision", "target": "Country"},
                    {"source": "County", "target": "Subdivision"},
                ],
            },
            {"type": "USES_CURRENCY", "pairs": [{"source": "Country", "target": "Currency"}]},
            {"type": "BORDERS", "pairs": [{"source": "Country", "target": "Country"}]},
            {"type": "IN_REGION", "pairs": [{"source": "Country", "target": "Region"}]},
        ],
    }
)
COUNTS = {
    ("City", "LOCATED_IN", "Country"): 900,
    ("City", "LOCATED_IN", "Subdivision"): 100,
    ("Subdivision", "LOCATED_IN", "Country"): 500,
    ("County", "LOCATED_IN", "Subdivision"): 300,
    ("Country", "USES_CURRENCY", "Currency"): 250,
    ("Country", "BORDERS", "Country"): 600,
    ("Country", "IN_REGION", "Region"): 250,
}
CONTEXT = SkbContext(
    schema=GEO,
    pattern_counts=COUNTS,
    label_counts={"Country": 250, "Subdivision": 5000, "County": 3000, "City": 12000, "Currency": 150, "Region": 25},
)


def _shared(name: str, *labels: str, scores: tuple[float, ...] = ()) -> EntityRow:
    """An anchor mention whose name links exactly in each of `labels` (first listed first)."""
    links = {
        label: (NodeLink(f"{label}:{name}", name, label, scores[i] if scores else 0.99998 - i * 1e-5, 10),)
        for i, label in enumerate(labels)
    }
    return EntityRow(Mention(text=name, types=tuple(labels)), links)


def test_only_types_whose_links_tie_are_in_question() -> None:
    assert tied_types(_shared("Georgia", "Country", "Subdivision")) == ["Country", "Subdivision"]
    assert tied_types(_shared("Georgia", "Country", "Subdivision", scores=(1.0, 0.9))) == ["Country"]


@pytest.mark.parametrize(
    ("question", "asked", "label"),
    [
        ("Which cities are in the US state of Georgia?", None, "Subdivision"),
        ("List the towns of the province of Georgia.", None, "Subdivision"),
        ("Which countries are in the UN sub-region Georgia?", None, "Region"),
        ("Georgia the nation: which currency?", None, "Country"),
        ("What is the capital of Georgia?", "capital", None),  # the asked type's word names the answer
        ("What currency does Georgia use?", None, None),
    ],
)
def test_a_type_word_next_to_the_name_chooses(question: str, asked: str | None, label: str | None) -> None:
    candidates = ["Country", "Subdivision", "City", "Region"]
    assert named_type_near(question, "Georgia", candidates, GEO, asked) == label


def test_the_better_route_chooses_only_when_it_is_alone() -> None:
    keys = {"Country": (0, -2), "Subdivision": (0, -1)}
    assert better_routed(["Country", "Subdivision"], keys.get) == "Subdivision"
    assert better_routed(["Country", "Subdivision"], {"Country": (0, -1), "Subdivision": (0, -1)}.get) is None
    assert better_routed(["Country", "Subdivision"], {}.get) is None


@pytest.mark.parametrize(
    ("question", "anchor", "relations"),
    [
        ("Which counties are in Georgia?", "Subdivision", ["LOCATED_IN"]),  # one hop from a state, two from a country
        ("What currency does Georgia use?", "Country", ["USES_CURRENCY"]),  # only a country has a currency
        ("Which cities are in the US state of Georgia?", "Subdivision", ["LOCATED_IN"]),
        ("Which countries border Georgia?", "Country", ["BORDERS"]),
    ],
)
def test_the_planner_anchors_a_shared_name_on_the_type_the_question_means(
    question: str, anchor: str, relations: list[str]
) -> None:
    table = EntityTable((_shared("Georgia", "Country", "Subdivision"),))
    plan = HeuristicPlanner(CONTEXT).build(question, table)
    assert [(a.type, a.text) for a in plan.anchors] == [(anchor, "Georgia")]
    assert [hop.relation for hop in plan.hops] == relations


def test_a_second_word_for_the_asked_type_is_a_station_left_along_the_relation_the_words_name() -> None:
    planner = HeuristicPlanner(CONTEXT)
    table = EntityTable((_shared("Euro", "Currency", scores=(1.0,)),))

    def relations(question: str) -> list[str]:
        return [hop.relation for hop in planner.build(question, table).hops]

    assert relations("Which nations border the countries that use currency Euro?") == ["USES_CURRENCY", "BORDERS"]
    assert relations("Which nations use currency Euro?") == ["USES_CURRENCY"]
    # two words for the type, but no word of its own relation: the countries are the nations
    assert relations("Which nations are the countries that use currency Euro?") == ["USES_CURRENCY"]


def test_a_type_word_inside_a_longer_one_of_another_type_names_nothing() -> None:
    schema = GEO.model_copy(
        update={
            "node_types": tuple(
                t.model_copy(update={"aliases": ("nation", "sovereign state")}) if t.label == "Country" else t
                for t in GEO.node_types
            )
        }
    )
    assert named_types("Which sovereign states use the euro?", schema) == ["Country"]
    assert named_types("Which states of sovereign states?", schema) == ["Subdivision", "Country"]
