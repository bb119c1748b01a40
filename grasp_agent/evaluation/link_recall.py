"""How often linking gives a node back for its own name, per type of the loaded SKB (`grasp bench link-recall`).

A question that writes a node's exact name is embedded as that name, so the name index should return the node
first. Neo4j's vector indexes search approximately (HNSW), and with few candidates they miss some nodes even for
their own vector; this measures what the linking procedure (`grasp.link`, the path every mention takes) returns
for a sample of stored name embeddings. A hit is the node itself or a node of the same name (duplicates tie).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from neo4j import Driver, RoutingControl

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.skb.schema import SkbSchema

BATCH = 100  # vectors per link_many call


@dataclass(frozen=True)
class LinkRecall:
    """One type's result: of `sampled` names (out of `nodes`), how many linked back first and within the top k."""

    label: str
    nodes: int
    sampled: int
    first: int
    in_top_k: int
    k: int
    ms_per_name: float

    @property
    def missed(self) -> int:
        return self.sampled - self.in_top_k


def measure_link_recall(
    driver: Driver, database: str, schema: SkbSchema, sample: int, k: int = 1, seed: int = 0
) -> list[LinkRecall]:
    """Per node type with a name index, up to `sample` random nodes linked by their own stored name vector."""
    procedures = GraphProcedures(driver, database)
    rng = random.Random(seed)
    results = []
    for node_type in schema.node_types:
        label = node_type.label
        ids = [row["id"] for row in _read(driver, database, "named_node_ids", label)]
        if not ids:
            continue
        chosen = rng.sample(ids, min(sample, len(ids)))
        rows = _read(driver, database, "name_embeddings", label, ids=chosen)
        names = {str(row["id"]): str(row["name"] or "").lower() for row in rows}
        vectors = {str(row["id"]): [float(x) for x in row["embedding"]] for row in rows}
        first = in_top = 0
        started = time.perf_counter()
        keys = sorted(vectors)
        for start in range(0, len(keys), BATCH):
            batch = {key: vectors[key] for key in keys[start : start + BATCH]}
            for key, links in procedures.link_many(batch, [label], "name", k=k).items():
                hits = [str(link.node_id) == key or link.name.lower() == names[key] for link in links[:k]]
                first += bool(hits and hits[0])
                in_top += any(hits)
        elapsed_ms = 1000 * (time.perf_counter() - started)
        results.append(LinkRecall(label, len(ids), len(keys), first, in_top, k, elapsed_ms / max(1, len(keys))))
    return results


def _read(driver: Driver, database: str, statement: str, label: str, **params: Any) -> list[dict[str, Any]]:
    query = fill_identifiers(load_statements("graph_branch.cypher")[statement], label=label)
    records, _, _ = driver.execute_query(query, parameters_=params, database_=database, routing_=RoutingControl.READ)
    return [record.data() for record in records]


__all__ = ["LinkRecall", "measure_link_recall"]
