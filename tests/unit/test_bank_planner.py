"""The Path-Bank planner's routing (pure): meta-paths to directed hops, the choice among the bank's vote, and
the heuristic plan rebuilt on those routes."""

from __future__ import annotations

from grasp_agent.adapath.bank_planner import BankRoutes, choose_route, schema_hops
from grasp_agent.adapath.bank_retrieval import RankedMetaPath
from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, SchemaRoutes
from grasp_agent.graph_branch.plan import Direction, Risk
from grasp_agent.graph_branch.schema_paths import SchemaHop
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row


def _ranked(
    labels: list[str], relations: list[str], outgoing: list[bool], vote: float, first_vote: float | None = None
) -> RankedMetaPath:
    return RankedMetaPath(
        MetaPath.from_lists(labels, relations, outgoing), vote, 3, 3, (), vote if first_vote is None else first_vote
    )


# child -[:IS_A]-> parent; SUBTYPES walks from the parent against the stored direction, down to its children
SUBTYPES = _ranked(["Phenotype", "Phenotype"], ["IS_A"], [False], 2.5)
PARENTS = _ranked(["Phenotype", "Phenotype"], ["IS_A"], [True], 1.0)
GENE_DIRECT = _ranked(["Disease", "Gene"], ["ASSOCIATED_WITH"], [False], 1.8)
# the same voters also reached their genes through a phenotype, but always at a higher cost
GENE_DETOUR = _ranked(["Disease", "Phenotype", "Gene"], ["HAS_PHENOTYPE", "ASSOCIATED_WITH"], [True, False], 2.4, 0.0)


def test_a_meta_path_becomes_hops_with_the_labels_and_stored_directions() -> None:
    assert schema_hops(GENE_DETOUR.meta_path) == [
        SchemaHop("Disease", "HAS_PHENOTYPE", "Phenotype", True),
        SchemaHop("Phenotype", "ASSOCIATED_WITH", "Gene", False),
    ]


def test_vote_plus_first_choice_vote_wins_then_the_fewest_hops() -> None:
    assert choose_route([PARENTS, SUBTYPES]) is SUBTYPES
    assert choose_route([GENE_DETOUR, GENE_DIRECT]) is GENE_DIRECT  # more votes, but nobody's first choice
    chosen_detour = _ranked(
        ["Disease", "Phenotype", "Gene"], ["HAS_PHENOTYPE", "ASSOCIATED_WITH"], [True, False], 1.8, 1.9
    )
    assert choose_route([GENE_DIRECT, chosen_detour]) is chosen_detour
    tied_detour = _ranked(["Disease", "Phenotype", "Gene"], ["HAS_PHENOTYPE", "ASSOCIATED_WITH"], [True, False], 1.8)
    assert choose_route([tied_detour, GENE_DIRECT]) is GENE_DIRECT


def test_routes_fit_the_anchor_and_target_types_else_fall_back_to_the_schema_with_a_note() -> None:
    routes = BankRoutes([GENE_DETOUR, SUBTYPES, GENE_DIRECT], SchemaRoutes(HPO_CONTEXT))
    assert routes.default_target(["Phenotype"]) == "Phenotype"  # the first meta-path from an anchor's type
    assert routes.default_target(["Drug"]) == "Gene"  # none from the anchors' types: the best overall
    direct = routes.path("Disease", "Gene", "")
    assert direct == [SchemaHop("Disease", "ASSOCIATED_WITH", "Gene", False)] and routes.sure(direct)
    fallback = routes.path("Gene", "Disease", "")
    assert fallback == [SchemaHop("Gene", "ASSOCIATED_WITH", "Disease")] and not routes.sure(fallback)
    assert routes.notes == ["the bank has no meta-path from Gene to Disease: shortest schema path"]
    assert BankRoutes([], SchemaRoutes(HPO_CONTEXT)).default_target([]) == "Phenotype"  # the most populous


def test_subtype_questions_walk_is_a_downwards_and_bank_routes_may_be_low_risk() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    question = "Which phenotypes go with seizure in the ontology?"  # no word says which way
    table = EntityTable((_row("seizure", "Phenotype", 0.97),))
    undirected = planner.build(question, table)
    assert [(h.relation, h.direction) for h in undirected.hops] == [("IS_A", Direction.ANY)]
    banked = planner.build(question, table, BankRoutes([SUBTYPES, PARENTS], SchemaRoutes(HPO_CONTEXT)))
    hop = banked.hops[0]
    # a1 is the anchor (the parent), t the subtypes: the stored child -> parent edge runs t -> a1
    assert (hop.source, hop.relation, hop.target, hop.direction) == ("a1", "IS_A", "t", Direction.IN)
    assert hop.stored_from("t") is True
    assert banked.risk is Risk.LOW and banked.target.type == "Phenotype"
    three_hops = _ranked(
        ["Gene", "Disease", "Phenotype", "Phenotype"],
        ["ASSOCIATED_WITH", "HAS_PHENOTYPE", "IS_A"],
        [True, True, False],
        1.0,
    )
    long_plan = planner.build(
        "Which phenotypes refine the features of diseases of the gene NSF?",
        EntityTable((_row("NSF", "Gene", 1.0),)),
        BankRoutes([three_hops], SchemaRoutes(HPO_CONTEXT)),
    )
    assert len(long_plan.hops) == 3 and long_plan.risk is Risk.LOW  # the heuristic would say medium at 3 hops


def test_words_asking_for_the_hierarchy_keep_only_bank_routes_that_walk_it() -> None:
    """ "subtypes of X": similar bank questions that went straight to the target vouch for the wrong route."""
    straight = _ranked(["Phenotype", "Disease"], ["HAS_PHENOTYPE"], [False], 3.0)
    down_then_on = _ranked(["Phenotype", "Phenotype", "Disease"], ["IS_A", "HAS_PHENOTYPE"], [False, False], 1.0)
    up_then_on = _ranked(["Phenotype", "Phenotype", "Disease"], ["IS_A", "HAS_PHENOTYPE"], [True, False], 2.0)
    routes = BankRoutes([straight, up_then_on, down_then_on], SchemaRoutes(HPO_CONTEXT))
    assert routes.path("Phenotype", "Disease", "", cue="down") == schema_hops(down_then_on.meta_path)
    assert routes.path("Phenotype", "Disease", "", cue=None) == schema_hops(straight.meta_path)  # no cue: the vote
    assert routes.path("Phenotype", "Disease", "", cue="up") == schema_hops(up_then_on.meta_path)
    only_straight = BankRoutes([straight], SchemaRoutes(HPO_CONTEXT))
    walked = only_straight.path("Phenotype", "Disease", "", cue="down")
    assert walked is not None and (walked[0].relation, walked[0].outgoing) == ("IS_A", False)  # the schema's step
    assert not only_straight.sure(walked)
    assert only_straight.notes == [
        "no bank meta-path from Phenotype walks its hierarchy down, as the question asks: schema path"
    ]
