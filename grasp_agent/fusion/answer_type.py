"""Answers of the asked type (pure): when a question asks for a type ("Which diseases ..."), the text branch's
candidates of other types (phenotypes whose text matches the question's words) should not crowd the top.

Two policies, measured side by side in docs/benchmarks.md:
- `filter`: text candidates of other types are dropped before fusion (the graph ranking is of the plan's
  target type already), so the fused list holds only the asked type; when that would leave nothing, the
  candidates are kept as they are;
- `prior`: fusion runs on everything, then the list is stably partitioned: every node of the asked type, in
  fused order, before every other node, in fused order. Nothing is lost, only demoted.
Ids whose type is unknown count as another type.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Literal, TypeVar

TypePolicy = Literal["prior", "filter", "none"]
T = TypeVar("T")
Id = TypeVar("Id", bound=Hashable)


def of_asked_type(ids: Sequence[Id], labels: Mapping[Id, str], asked: str) -> list[Id]:
    """The `filter` policy on one ranking: only ids of the asked type, order kept; all of `ids` when none is."""
    kept = [node_id for node_id in ids if labels.get(node_id) == asked]
    return kept if kept else list(ids)


def asked_type_first(items: Sequence[T], label_of: Callable[[T], str | None], asked: str) -> list[T]:
    """The `prior` policy: items of the asked type first, then the others, each group in its given order."""
    matching = [item for item in items if label_of(item) == asked]
    others = [item for item in items if label_of(item) != asked]
    return matching + others


__all__ = ["TypePolicy", "asked_type_first", "of_asked_type"]
