"""Superlative questions ("the most populous city of X", "the smallest neighbour of Y") as a plan's order: rank
the targets by a quantity they hold, read from the question's superlative and the target type's quantity
properties (`grasp_agent.skb.property_kinds`, found in the SKB's own values).

The superlatives below are English grammar, not any SKB's terms (as function words are): which way each ranks
("oldest" is left out: the oldest has the largest age but the smallest year).
The property is the one the question's words name ("populous" ~ population, "area"), else the type's first
quantity property in schema order. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grasp_agent.graph_branch.plan import PropertyOrder
from grasp_agent.graph_branch.relation_words import spaced_name

HIGHER = frozenset(
    "most largest biggest highest greatest maximum heaviest longest tallest richest widest deepest busiest "
    "densest".split()
)
LOWER = frozenset(
    "least smallest lowest fewest minimum lightest shortest cheapest poorest narrowest shallowest tiniest".split()
)
_WORD = re.compile(r"[a-z][a-z0-9]*")
PREFIX = 5  # two words name one thing when they share their first 5 letters ("populous" ~ "population")
MIN_WORD = 4  # ... and both have at least 4 ("area" ~ "areas"; not "a", "km")


@dataclass(frozen=True)
class ReadOrder:
    order: PropertyOrder
    cue: str  # the superlative that asked for it
    named: bool  # whether a word of the question named the property (else the type's first quantity)


def _same_word(a: str, b: str) -> bool:
    n = min(PREFIX, len(a), len(b))
    return len(a) >= MIN_WORD and len(b) >= MIN_WORD and a[:n] == b[:n]


def read_order(frame: str, properties: Sequence[str]) -> ReadOrder | None:
    """The order a question's frame (its words around the mentions) asks for among the target type's quantity
    properties; None without a superlative or without a quantity to rank by."""
    if not properties:
        return None
    words = _WORD.findall(frame.lower())
    cue = next((word for word in words if word in HIGHER or word in LOWER), None)
    if cue is None:
        return None
    named = [
        prop
        for prop in properties
        if any(_same_word(word, part) for word in words for part in spaced_name(prop).split())
    ]
    return ReadOrder(
        order=PropertyOrder(property=(named or list(properties))[0], descending=cue in HIGHER),
        cue=cue,
        named=bool(named),
    )


__all__ = ["HIGHER", "LOWER", "ReadOrder", "read_order"]
