"""Quoted keywords: what a question quotes that no mention covers is asked of the targets' names."""

from __future__ import annotations

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.plan import parse_plan
from grasp_agent.graph_branch.quoted_words import quoted_keywords
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row


def test_a_short_quoted_passage_no_mention_covers_is_a_keyword() -> None:
    assert quoted_keywords('Unsteady gait -> diseases named "spastic"', ["Unsteady gait"]) == ("spastic",)
    assert quoted_keywords("What “Larsen-Like” conditions present with X?", ["X"]) == ("Larsen-Like",)
    # a passage a mention covers (a described entity) is no keyword, nor is a long one (a description)
    assert quoted_keywords('the phenotype defined as "Short stature"', ["Short stature"]) == ()
    assert quoted_keywords('diseases with "an abnormal shape of the skull"', []) == ()
    # nothing quoted, empty quotes, punctuation only
    assert quoted_keywords("Which diseases present with Seizure?", ["Seizure"]) == ()
    assert quoted_keywords('diseases named "" or "--"', []) == ()
    # a mention elsewhere in the question does not cover the quote; repeats count once; at most four
    assert quoted_keywords('spastic gait: diseases named "spastic"', ["spastic gait"]) == ("spastic",)
    assert quoted_keywords('"a" "b" "a" "c" "d" "e"', []) == ("a", "b", "c", "d")


def test_the_planner_asks_quoted_keywords_of_the_targets_names() -> None:
    table = EntityTable((_row("Unsteady gait", "Phenotype", 1.0),))
    plan = HeuristicPlanner(HPO_CONTEXT).build('Unsteady gait -> diseases named "spastic"', table)
    assert plan.target.type == "Disease" and plan.name_contains == ("spastic",)
    assert '"name_contains":["spastic"]' in plan.to_json() and parse_plan(plan.to_json()) == plan
    plain = HeuristicPlanner(HPO_CONTEXT).build("Which diseases present with Unsteady gait?", table)
    assert plain.name_contains == () and "name_contains" not in plain.to_json()
