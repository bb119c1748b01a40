"""Answers of the asked type: the filter and the prior on hand-made rankings."""

from __future__ import annotations

from grasp_agent.fusion.answer_type import asked_type_first, of_asked_type
from grasp_agent.fusion.rrf import FusedItem

LABELS = {"D1": "Disease", "D2": "Disease", "P1": "Phenotype", "P2": "Phenotype", "G1": "Gene"}


def test_the_filter_keeps_only_the_asked_type_in_order() -> None:
    assert of_asked_type(["P1", "D2", "G1", "D1", "X"], LABELS, "Disease") == ["D2", "D1"]


def test_the_filter_keeps_everything_when_nothing_is_of_the_asked_type() -> None:
    assert of_asked_type(["P1", "G1"], LABELS, "Disease") == ["P1", "G1"]


def test_the_prior_moves_the_asked_type_first_and_loses_nothing() -> None:
    items = [
        FusedItem(node_id, 1.0 / rank, (None, rank))
        for rank, node_id in enumerate(["P1", "D2", "unknown", "G1", "D1", "P2"], start=1)
    ]
    ordered = asked_type_first(items, lambda item: LABELS.get(str(item.id)), "Disease")
    assert [item.id for item in ordered] == ["D2", "D1", "P1", "unknown", "G1", "P2"]
    assert sorted(ordered, key=lambda item: -item.score) == items  # the same items, scores untouched
