"""What is loaded: the stored SKB schema, live counts from grasp.schema(), vector index states."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import Driver

from grasp_agent.skb.checkpoint import SCHEMA_KEY_PREFIX, LoadState, read_state
from grasp_agent.skb.loader import read_schema
from grasp_agent.skb.schema import SkbSchema


@dataclass(frozen=True)
class SkbInfo:
    schema: SkbSchema
    state: LoadState | None
    label_counts: dict[str, int]
    patterns: list[dict[str, object]]
    indexes: list[dict[str, object]]


def relation_counts(patterns: list[dict[str, object]]) -> dict[tuple[str, str, str], int]:
    """grasp.schema() patterns as {(source, type, target): count}."""
    return {(str(p["source"]), str(p["type"]), str(p["target"])): int(p["count"]) for p in patterns}  # type: ignore[call-overload]


def read_skb_info(driver: Driver, database: str) -> list[SkbInfo]:
    infos = []
    with driver.session(database=database) as session:
        keys = session.run(
            "MATCH (m:GraspMeta) WHERE m.key STARTS WITH $prefix RETURN m.key AS key ORDER BY key",
            prefix=SCHEMA_KEY_PREFIX,
        ).data()
        graph = session.run("CALL grasp.schema() YIELD labels, patterns RETURN labels, patterns").single(strict=True)
        counts = {row["label"]: row["count"] for row in graph["labels"]}
        for key in keys:
            name = key["key"].removeprefix(SCHEMA_KEY_PREFIX)
            schema = read_schema(session, name)
            if schema is None:
                continue
            labels = {t.label for t in schema.node_types}
            indexes = session.run(
                "SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, state, populationPercent "
                "WHERE labelsOrTypes[0] IN $labels RETURN name, labelsOrTypes[0] AS label, properties[0] AS property, "
                "state, populationPercent ORDER BY name",
                labels=sorted(labels),
            ).data()
            infos.append(
                SkbInfo(
                    schema=schema,
                    state=read_state(session, name),
                    label_counts={label: counts.get(label, 0) for label in sorted(labels)},
                    patterns=[p for p in graph["patterns"] if p["source"] in labels and p["target"] in labels],
                    indexes=indexes,
                )
            )
    return infos
