"""AdaPath's pure parts: meta-path abstraction, the PPR corridor, the bank constants' checks, meta-paths of a
plan, answers from paths and their exact match, question analysis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from grasp_agent.adapath.answer import PathAnswer, answer_from_paths
from grasp_agent.adapath.bank_build import BankConfig
from grasp_agent.adapath.corridor import corridor_nodes
from grasp_agent.adapath.metapath import MetaPath, MetaPathStep, PathHop, meta_path_of
from grasp_agent.adapath.path_evidence import EvidencePath
from grasp_agent.adapath.path_search import interleave_meta_paths
from grasp_agent.adapath.plan_meta_paths import plan_meta_paths
from grasp_agent.adapath.question import LLMHopGuesser, analyse_question
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.plan import Plan
from grasp_agent.graph_branch.procedure_calls import NodeLink
from grasp_agent.llm.base import ChatResult, GenerationOptions, GraspLLM, OutputConstraint
from grasp_agent.llm.errors import LLMError
from grasp_agent.ranking import cell_averaged, exact_match
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema


def _hop(source: str, target: str, relation: str, outgoing: bool, labels: tuple[str, str]) -> PathHop:
    return PathHop(source, target, labels[0], labels[1], relation, outgoing)


def test_a_path_abstracts_to_labels_relations_and_directions() -> None:
    hops = [
        _hop("HP:1", "OMIM:2", "HAS_PHENOTYPE", False, ("Phenotype", "Disease")),
        _hop("OMIM:2", "NCBIGene:3", "ASSOCIATED_WITH", False, ("Disease", "Gene")),
    ]
    meta = meta_path_of(hops)
    assert meta.signature == "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)<-[:ASSOCIATED_WITH]-(:Gene)"
    assert (meta.hops, meta.answer_label) == (2, "Gene")
    # Another path over other nodes with the same skeleton is the same meta-path.
    other = [
        _hop("HP:9", "OMIM:8", "HAS_PHENOTYPE", False, ("Phenotype", "Disease")),
        _hop("OMIM:8", "NCBIGene:7", "ASSOCIATED_WITH", False, ("Disease", "Gene")),
    ]
    assert meta_path_of(other) == meta
    forward = meta_path_of([_hop("OMIM:2", "HP:1", "HAS_PHENOTYPE", True, ("Disease", "Phenotype"))])
    assert forward.signature == "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)"


def test_hops_must_chain_and_stay_within_three() -> None:
    with pytest.raises(ValueError, match="do not chain"):
        meta_path_of([_hop("a", "b", "R", True, ("A", "B")), _hop("c", "d", "R", True, ("B", "C"))])
    with pytest.raises(ValueError, match="at least one hop"):
        meta_path_of([])
    with pytest.raises(ValueError, match="1-3 hops"):
        MetaPath("A", tuple(MetaPathStep("R", True, "A") for _ in range(4)))


def test_corridor_is_where_both_walks_meet_plus_the_ends() -> None:
    from_topic = {1: 0.5, 2: 0.3, 3: 0.2, 4: 0.1, 9: 0.4}
    from_answers = {2: 0.5, 3: 0.4, 4: 0.9, 5: 0.6, 9: 0.0}
    # products: 2 -> 0.15, 3 -> 0.08, 4 -> 0.09; 1 and 5 are reached by one walk only, 9 scores 0
    assert corridor_nodes(from_topic, from_answers, 2, required=[1, 5]) == [2, 4, 1, 5]
    assert corridor_nodes(from_topic, from_answers, 10, required=[]) == [2, 4, 3]
    assert corridor_nodes(from_topic, from_answers, 0, required=[1]) == [1]
    with pytest.raises(ValueError, match=">= 0"):
        corridor_nodes(from_topic, from_answers, -1, required=[])


def test_corridor_ties_break_by_node_id() -> None:
    assert corridor_nodes({3: 1.0, 1: 1.0, 2: 1.0}, {3: 1.0, 1: 1.0, 2: 1.0}, 2, required=[]) == [1, 2]


@pytest.mark.parametrize(
    "change",
    [
        {"corridor_size": 0},
        {"paths_per_answer": 0},
        {"damping": 1.0},
        {"eps": 0.0},
        {"max_hops": 4},
        {"ppr_iterations": 0},
    ],
)
def test_bank_config_refuses_values_outside_their_range(change: dict[str, float]) -> None:
    with pytest.raises(GraspError, match="invalid AdaPath bank config"):
        BankConfig(**change)  # type: ignore[arg-type]


def test_a_meta_path_round_trips_through_the_lists_the_bank_stores() -> None:
    meta = meta_path_of(
        [
            _hop("HP:1", "OMIM:2", "HAS_PHENOTYPE", False, ("Phenotype", "Disease")),
            _hop("OMIM:2", "G:3", "ASSOCIATED_WITH", False, ("Disease", "Gene")),
        ]
    )
    assert meta.as_lists() == {
        "labels": ["Phenotype", "Disease", "Gene"],
        "relations": ["HAS_PHENOTYPE", "ASSOCIATED_WITH"],
        "outgoing": [False, False],
    }
    assert MetaPath.from_lists(**meta.as_lists()) == meta
    with pytest.raises(ValueError, match="one label more"):
        MetaPath.from_lists(["Phenotype"], ["HAS_PHENOTYPE"], [False])


# --- meta-paths read off a GRASP plan (adapath-nobank) ---------------------------------------------------------

HPO_LIKE = SkbSchema(
    name="hpo",
    node_types=(NodeType(label="Disease"), NodeType(label="Phenotype"), NodeType(label="Gene")),
    relation_types=(
        RelationType(type="HAS_PHENOTYPE", pairs=(RelationPair(source="Disease", target="Phenotype"),)),
        RelationType(type="IS_A", pairs=(RelationPair(source="Phenotype", target="Phenotype"),)),
        RelationType(
            type="ASSOCIATED_WITH",
            pairs=(RelationPair(source="Gene", target="Disease"), RelationPair(source="Gene", target="Phenotype")),
        ),
    ),
)


def _plan(payload: dict[str, Any]) -> Plan:
    return Plan.model_validate(payload)


def test_a_plan_hop_walks_its_relation_in_the_stored_direction() -> None:
    plan = _plan(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "Seizure"}],
            "hops": [{"source": "t", "relation": "HAS_PHENOTYPE", "target": "a1"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    assert [m.signature for m in plan_meta_paths(plan, HPO_LIKE)] == ["(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)"]


def test_a_two_hop_plan_infers_the_intermediate_type_and_a_self_relation_reads_both_ways() -> None:
    plan = _plan(
        {
            "anchors": [{"var": "a1", "type": "Disease", "text": "Dravet syndrome"}],
            "hops": [
                {"source": "a1", "relation": "HAS_PHENOTYPE", "target": "x"},
                {"source": "x", "relation": "ASSOCIATED_WITH", "target": "t"},
            ],
            "target": {"var": "t", "type": "Gene"},
        }
    )
    assert [m.signature for m in plan_meta_paths(plan, HPO_LIKE)] == [
        "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)"
    ]
    subtypes = _plan(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "Seizure"}],
            "hops": [{"source": "a1", "relation": "IS_A", "target": "t"}],
            "target": {"var": "t", "type": "Phenotype"},
        }
    )
    assert sorted(m.signature for m in plan_meta_paths(subtypes, HPO_LIKE)) == [
        "(:Phenotype)-[:IS_A]->(:Phenotype)",
        "(:Phenotype)<-[:IS_A]-(:Phenotype)",
    ]


@pytest.mark.parametrize(
    "hop,signature",
    [
        ({"source": "t", "relation": "IS_A", "target": "a1", "direction": "out"}, "(:Phenotype)<-[:IS_A]-(:Phenotype)"),
        ({"source": "a1", "relation": "IS_A", "target": "t", "direction": "in"}, "(:Phenotype)<-[:IS_A]-(:Phenotype)"),
        ({"source": "a1", "relation": "IS_A", "target": "t", "direction": "out"}, "(:Phenotype)-[:IS_A]->(:Phenotype)"),
    ],
)
def test_a_directed_hop_reads_its_relation_one_way_only(hop: dict[str, str], signature: str) -> None:
    plan = _plan(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "Seizure"}],
            "hops": [hop],
            "target": {"var": "t", "type": "Phenotype"},
        }
    )
    assert [m.signature for m in plan_meta_paths(plan, HPO_LIKE)] == [signature]


def test_plans_without_a_chain_to_the_target_or_longer_than_three_hops_give_no_meta_path() -> None:
    no_hops = _plan(
        {
            "anchors": [{"var": "a1", "type": "Gene", "text": "NSF"}],
            "relevance_text": "x",
            "target": {"var": "t", "type": "Disease"},
        }
    )
    assert plan_meta_paths(no_hops, HPO_LIKE) == []
    long_chain = _plan(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "Seizure"}],
            "hops": [
                {"source": "a1", "relation": "IS_A", "target": "x1", "target_type": "Phenotype"},
                {"source": "x1", "relation": "IS_A", "target": "x2", "target_type": "Phenotype"},
                {"source": "x2", "relation": "IS_A", "target": "x3", "target_type": "Phenotype"},
                {"source": "x3", "relation": "HAS_PHENOTYPE", "target": "t"},
            ],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    assert plan_meta_paths(long_chain, HPO_LIKE) == []
    wrong_types = _plan(
        {
            "anchors": [{"var": "a1", "type": "Gene", "text": "NSF"}],
            "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    assert plan_meta_paths(wrong_types, HPO_LIKE) == []  # HAS_PHENOTYPE never touches a Gene


# --- answers from paths, EM ----------------------------------------------------------------------------------


def _path(end_id: str, end_name: str, score: float) -> EvidencePath:
    return EvidencePath(
        ("HP:1", end_id),
        ("Seizure", end_name),
        ("Phenotype", "Disease"),
        ("HAS_PHENOTYPE",),
        (False,),
        score,
        "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)",
    )


class AnsweringLLM(GraspLLM):
    """Returns a fixed completion and records the schema it was constrained to. It stands for a model that
    answers well or badly, to test OUR handling of each answer; the real 0.5B model is tested in tests/neo4j."""

    def __init__(self, text: str | None, error: LLMError | None = None) -> None:
        super().__init__(model_name="answering")
        self.text, self.error, self.schemas = text, error, []  # type: ignore[var-annotated]

    @property
    def model_id(self) -> str:
        return "scripted:answer"

    def _chat(self, messages: list[Any], constraint: OutputConstraint, options: GenerationOptions) -> ChatResult:
        self.schemas.append(constraint.schema)
        if self.error is not None:
            raise self.error
        return ChatResult(self.text or "")

    def first_token_logprobs(self, messages: Sequence[Any], candidates: Sequence[str]) -> dict[str, float]:
        raise AssertionError("not used")


def test_the_llm_must_name_an_end_of_the_shown_paths_and_its_choice_maps_back_to_the_node() -> None:
    paths = [
        _path("OMIM:1", "Dravet syndrome", 0.9),
        _path("OMIM:2", "West syndrome", 0.8),
        _path("OMIM:1", "Dravet syndrome", 0.7),
    ]
    llm = AnsweringLLM('{"answer": "West syndrome"}')
    answer = answer_from_paths("Which disease?", paths, llm)
    assert (answer.text, answer.node_id, answer.source, answer.supporting) == ("West syndrome", "OMIM:2", "llm", (1,))
    assert llm.schemas[0]["properties"]["answer"]["enum"] == ["Dravet syndrome", "West syndrome"]


@pytest.mark.parametrize(
    "text, error",
    [
        ('{"answer": "Angelman syndrome"}', None),
        ("no json at all", None),
        ('["a list"]', None),
        (None, LLMError("endpoint down")),
    ],
)
def test_a_bad_or_failed_llm_answer_falls_back_to_the_best_path_and_says_why(
    text: str | None, error: LLMError | None
) -> None:
    paths = [_path("OMIM:1", "Dravet syndrome", 0.9), _path("OMIM:2", "West syndrome", 0.8)]
    answer = answer_from_paths("Which disease?", paths, AnsweringLLM(text, error))
    assert (answer.text, answer.node_id, answer.source) == ("Dravet syndrome", "OMIM:1", "best-path")
    assert answer.failure


def test_without_paths_there_is_no_answer_and_without_an_llm_the_best_path_answers() -> None:
    assert answer_from_paths("q", [], None) == PathAnswer("", None, "none", failure="no path found")
    best = answer_from_paths("q", [_path("OMIM:2", "West syndrome", 0.8)], None)
    assert (best.text, best.source, best.failure) == ("West syndrome", "best-path", None)


def test_exact_match_normalises_case_and_whitespace_and_accepts_any_gold_name() -> None:
    assert exact_match("  west   SYNDROME ", {"Dravet syndrome", "West syndrome"}) == 1.0
    assert exact_match("West", {"West syndrome"}) == 0.0
    assert exact_match("", {""}) == 0.0


def test_overall_is_the_mean_of_cells_not_of_questions() -> None:
    cells, overall = cell_averaged(
        [(("explicit", "1"), 1.0), (("explicit", "1"), 1.0), (("explicit", "1"), 1.0), (("implicit", "2"), 0.0)]
    )
    assert cells == {("explicit", "1"): 1.0, ("implicit", "2"): 0.0} and overall == 0.5
    assert cell_averaged([]) == ({}, 0.0)


# --- question analysis ---------------------------------------------------------------------------------------


def _row(text: str, role: MentionRole, links: dict[str, tuple[NodeLink, ...]]) -> EntityRow:
    return EntityRow(Mention(text=text, types=tuple(links) or ("Gene",), role=role), links)


def test_topics_are_the_confident_anchor_links_and_the_answer_type_the_single_target_type() -> None:
    table = EntityTable(
        (
            _row("NSF", MentionRole.ANCHOR, {"Gene": (NodeLink("NCBIGene:4905", "NSF", "Gene", 0.97, 3),)}),
            _row("fits", MentionRole.ANCHOR, {"Phenotype": (NodeLink("HP:1", "Seizure", "Phenotype", 0.41, 9),)}),
            _row("diseases", MentionRole.TARGET, {"Disease": ()}),
        )
    )
    analysis = analyse_question("Which diseases is NSF linked to?", table, ["Disease", "Gene", "Phenotype"])
    assert analysis.topic_ids == ["NCBIGene:4905"] and analysis.topic_source == "linked"
    assert (analysis.answer_label, analysis.hops, analysis.analyser) == ("Disease", None, "heuristic")
    given = analyse_question("q", table, ["Disease"], topic_ids=["OMIM:1", "OMIM:1"])
    assert given.topic_ids == ["OMIM:1"] and given.topic_source == "given"
    nothing = analyse_question("q", EntityTable(()), ["Disease"])
    assert nothing.topics == () and nothing.topic_source == "none" and nothing.notes


def test_the_llm_hop_guess_is_constrained_and_a_failed_guess_is_a_note() -> None:
    table = EntityTable((_row("diseases", MentionRole.TARGET, {"Disease": ()}),))
    llm = AnsweringLLM('{"hops": 2, "answer_type": "Gene"}')
    guessed = analyse_question("q", table, ["Disease", "Gene"], hop_guesser=LLMHopGuesser(llm))
    assert (guessed.hops, guessed.answer_label, guessed.analyser) == (2, "Disease", "scripted:answer")
    assert llm.schemas[0]["properties"]["hops"] == {"type": "integer", "minimum": 1, "maximum": 3}
    failed = analyse_question("q", table, ["Disease"], hop_guesser=LLMHopGuesser(AnsweringLLM(None, LLMError("x"))))
    assert failed.hops is None and failed.answer_label == "Disease" and "guess failed" in failed.notes[-1]


def test_guided_paths_interleave_meta_paths_in_vote_order() -> None:
    def path(end: str, score: float, meta: str) -> EvidencePath:
        return EvidencePath(("T", end), ("t", end), ("A", "B"), ("R",), (True,), score, meta)

    paths = [
        path("a", 0.9, "second"),
        path("b", 0.5, "first"),
        path("c", 0.7, "first"),
        path("e", 0.3, "second"),
        path("d", 0.99, "other"),
    ]
    # round 1: first's best (c), second's best (a), then the unranked one (d); round 2: b, e
    assert [p.end_id for p in interleave_meta_paths(paths, ["first", "second"])] == ["c", "a", "d", "b", "e"]
    assert [p.end_id for p in interleave_meta_paths(paths, [])] == ["d", "a", "c", "b", "e"]  # no meta-paths: by score
