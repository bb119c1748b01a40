"""Teacher plans (pure parts): one candidate per own meta-path that fits an anchor, then the heuristic's;
the JSONL set round-trips and a damaged line is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, SchemaRoutes
from grasp_agent.graph_branch.plan import Direction
from grasp_agent.training.teacher_plans import (
    Provenance,
    TeacherExample,
    candidate_plans,
    read_teacher_set,
    write_teacher_set,
)
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row

QUESTION = "Which phenotypes go with seizure in the ontology?"  # the heuristic reads IS_A either way
TABLE = EntityTable((_row("seizure", "Phenotype", 0.97),))
DOWN = MetaPath.from_lists(["Phenotype", "Phenotype"], ["IS_A"], [False])
UP = MetaPath.from_lists(["Phenotype", "Phenotype"], ["IS_A"], [True])
FROM_A_GENE = MetaPath.from_lists(["Gene", "Phenotype"], ["ASSOCIATED_WITH"], [True])


def test_each_own_meta_path_that_fits_an_anchor_gives_a_candidate_then_the_heuristic() -> None:
    heuristic = HeuristicPlanner(HPO_CONTEXT)
    found = candidate_plans(QUESTION, TABLE, heuristic, SchemaRoutes(HPO_CONTEXT), [DOWN, FROM_A_GENE, UP])
    assert [(teacher, signature) for _, teacher, signature in found] == [
        ("bank-own", DOWN.signature),
        ("bank-own", UP.signature),
        ("heuristic", None),
    ]
    assert [plan.hops[0].direction for plan, _, _ in found] == [Direction.IN, Direction.OUT, Direction.ANY]
    # no own meta-path: only the heuristic's plan
    assert [
        teacher for _, teacher, _ in candidate_plans(QUESTION, TABLE, heuristic, SchemaRoutes(HPO_CONTEXT), [])
    ] == ["heuristic"]


def test_the_teacher_set_round_trips_and_a_bad_line_is_named(tmp_path: Path) -> None:
    plan, _, signature = candidate_plans(
        QUESTION, TABLE, HeuristicPlanner(HPO_CONTEXT), SchemaRoutes(HPO_CONTEXT), [DOWN]
    )[0]
    example = TeacherExample(
        "q1",
        QUESTION,
        "train",
        [{"role": "user", "content": QUESTION}],
        plan,
        Provenance("bank-own", signature, 1, 4, 2, 1),
    )
    path = tmp_path / "sft.jsonl"
    write_teacher_set([example], path)
    [record] = read_teacher_set(path)
    assert record["completion"][0]["content"] == plan.to_json() and record["provenance"]["teacher"] == "bank-own"
    path.write_text(path.read_text() + json.dumps({"prompt": [], "completion": [{"content": "{}"}]}) + "\n")
    with pytest.raises(GraspError, match=r"sft.jsonl:2: not a teacher example"):
        read_teacher_set(path)
