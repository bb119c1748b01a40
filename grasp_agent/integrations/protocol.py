"""What the integrations need from a search: `Grasp` satisfies it, and nothing here reaches into its parts."""

from __future__ import annotations

from typing import Protocol

from neo4j import Driver

from grasp_agent.adapath.result import PathResult
from grasp_agent.pipeline.results import SearchResult
from grasp_agent.skb.schema import SkbSchema


class GraspLike(Protocol):
    """The loaded SKB's schema, the Neo4j connection, and the two searches (ranked nodes, AdaPath paths)."""

    @property
    def schema(self) -> SkbSchema: ...

    @property
    def driver(self) -> Driver: ...

    @property
    def database(self) -> str: ...

    def search(self, question: str, k: int | None = None) -> SearchResult: ...

    def paths(self, question: str, *, k: int | None = None) -> PathResult: ...
