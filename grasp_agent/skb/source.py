"""What every SKB source yields: typed node and edge records, streamed in a deterministic order."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field

from grasp_agent.skb.schema import SkbSchema

PropertyValue = str | int | float | bool | list[str] | list[int] | list[float]


@dataclass(frozen=True)
class NodeRecord:
    label: str
    id: str | int  # the public source id, kept exactly (HP:0001250, OMIM:619340, STaRK's integers)
    name: str
    properties: dict[str, PropertyValue] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeRecord:
    source_label: str
    source_id: str | int
    type: str
    target_label: str
    target_id: str | int
    properties: dict[str, PropertyValue] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceCounts:
    """Rows skipped on purpose (documented per source), so a summary can report them."""

    skipped: dict[str, int] = field(default_factory=dict)


class SkbSource(ABC):
    """A knowledge base on disk. Iterating twice yields the same records in the same order (resumable loads)."""

    @abstractmethod
    def schema(self) -> SkbSchema: ...

    @abstractmethod
    def nodes(self) -> Iterator[NodeRecord]: ...

    @abstractmethod
    def edges(self) -> Iterator[EdgeRecord]: ...

    @abstractmethod
    def fingerprint(self) -> str:
        """Changes whenever the source data changes; a load of the same fingerprint is a no-op."""

    def size_hint(self) -> tuple[int | None, int | None]:
        """(nodes, edges) if cheaply known, for progress bars."""
        return None, None

    def skipped(self) -> dict[str, int]:
        """Counts of rows skipped on purpose, by reason; complete once nodes() and edges() were consumed."""
        return {}
