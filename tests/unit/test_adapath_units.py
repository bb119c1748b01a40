"""AdaPath's pure parts: meta-path abstraction, the PPR corridor, the bank constants' checks."""

from __future__ import annotations

import pytest

from grasp_agent.adapath.bank_build import BankConfig
from grasp_agent.adapath.corridor import corridor_nodes
from grasp_agent.adapath.metapath import MetaPath, MetaPathStep, PathHop, meta_path_of
from grasp_agent.errors import GraspError


def _hop(source: str, target: str, relation: str, outgoing: bool, labels: tuple[str, str]) -> PathHop:
    return PathHop(source, target, labels[0], labels[1], relation, outgoing)


def test_a_path_abstracts_to_labels_relations_and_directions() -> None:
    hops = [_hop("HP:1", "OMIM:2", "HAS_PHENOTYPE", False, ("Phenotype", "Disease")),
            _hop("OMIM:2", "NCBIGene:3", "ASSOCIATED_WITH", False, ("Disease", "Gene"))]
    meta = meta_path_of(hops)
    assert meta.signature == "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)<-[:ASSOCIATED_WITH]-(:Gene)"
    assert (meta.hops, meta.answer_label) == (2, "Gene")
    # Another path over other nodes with the same skeleton is the same meta-path.
    other = [_hop("HP:9", "OMIM:8", "HAS_PHENOTYPE", False, ("Phenotype", "Disease")),
             _hop("OMIM:8", "NCBIGene:7", "ASSOCIATED_WITH", False, ("Disease", "Gene"))]
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


@pytest.mark.parametrize("change", [{"corridor_size": 0}, {"paths_per_answer": 0}, {"damping": 1.0},
                                    {"eps": 0.0}, {"max_hops": 4}, {"ppr_iterations": 0}])
def test_bank_config_refuses_values_outside_their_range(change: dict[str, float]) -> None:
    with pytest.raises(GraspError, match="invalid AdaPath bank config"):
        BankConfig(**change)  # type: ignore[arg-type]


def test_a_meta_path_round_trips_through_the_lists_the_bank_stores() -> None:
    meta = meta_path_of([_hop("HP:1", "OMIM:2", "HAS_PHENOTYPE", False, ("Phenotype", "Disease")),
                         _hop("OMIM:2", "G:3", "ASSOCIATED_WITH", False, ("Disease", "Gene"))])
    assert meta.as_lists() == {"labels": ["Phenotype", "Disease", "Gene"],
                               "relations": ["HAS_PHENOTYPE", "ASSOCIATED_WITH"], "outgoing": [False, False]}
    assert MetaPath.from_lists(**meta.as_lists()) == meta
    with pytest.raises(ValueError, match="one label more"):
        MetaPath.from_lists(["Phenotype"], ["HAS_PHENOTYPE"], [False])
