"""What the branches need to know about the loaded SKB: its schema and the edge counts per pattern."""

from __future__ import annotations

from dataclasses import dataclass, field

from neo4j import Driver

from grasp_agent.errors import GraspError
from grasp_agent.skb.info import read_skb_info, relation_counts
from grasp_agent.skb.property_kinds import read_property_kinds
from grasp_agent.skb.schema import SkbSchema


class NoSkbLoadedError(GraspError):
    """The database holds no SKB, or several and the caller did not say which."""


@dataclass(frozen=True)
class SkbContext:
    schema: SkbSchema
    # (source label, relation, target label) in stored direction -> edge count, from grasp.schema()
    pattern_counts: dict[tuple[str, str, str], int]
    label_counts: dict[str, int]
    # node type -> its properties that hold quantities (read from the values), which a plan may rank by
    quantity_properties: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # node type -> its properties that hold keys ("FRA", "US-GA"), which the name dictionary matches
    key_properties: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return [node_type.label for node_type in self.schema.node_types]

    @property
    def relations(self) -> list[str]:
        return sorted({relation for _, relation, _ in self.pattern_counts})


def read_skb_context(driver: Driver, database: str, skb_name: str | None = None) -> SkbContext:
    """The loaded SKB named `skb_name`, or the only one loaded."""
    infos = read_skb_info(driver, database)
    names = [info.schema.name for info in infos]
    if not infos:
        raise NoSkbLoadedError(f"database '{database}' holds no SKB; load one first (e.g. `grasp load hpo`)")
    if skb_name is None and len(infos) > 1:
        raise NoSkbLoadedError(f"database '{database}' holds several SKBs {names}; name one")
    chosen = [info for info in infos if skb_name is None or info.schema.name == skb_name]
    if not chosen:
        raise NoSkbLoadedError(f"SKB '{skb_name}' is not loaded in database '{database}'; loaded: {names}")
    info = chosen[0]
    kinds = read_property_kinds(driver, database, info.schema)
    return SkbContext(
        schema=info.schema,
        pattern_counts=relation_counts(info.patterns),
        label_counts=dict(info.label_counts),
        quantity_properties=kinds.quantities,
        key_properties=kinds.keys,
    )
