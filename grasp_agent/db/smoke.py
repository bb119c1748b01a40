"""The stack smoke check: vector index search, GDS personalized PageRank and APOC on a tiny graph."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from neo4j import Driver

from grasp_agent.cypher_queries import load_statements
from grasp_agent.errors import SmokeCheckError

GDS_GRAPH = "grasp_smoke"


@dataclass(frozen=True)
class SmokeItem:
    id: str
    name: str
    vector: tuple[float, ...]


# Four items around a hub; vectors are unit-normalized by the check, so cosine is exact.
ITEMS = (
    SmokeItem("hub", "Hub", (1.0, 1.0, 0.0, 0.0)),
    SmokeItem("a", "Alpha", (1.0, 0.0, 0.0, 0.0)),
    SmokeItem("b", "Beta", (0.0, 1.0, 0.0, 0.0)),
    SmokeItem("c", "Gamma", (0.0, 0.0, 1.0, 0.0)),
    SmokeItem("d", "Delta", (0.0, 0.0, 0.0, 1.0)),
)
LINKS = (("a", "hub"), ("b", "hub"), ("c", "hub"), ("d", "c"))
PAGERANK_SOURCE = "d"


@dataclass(frozen=True)
class SmokeReport:
    vector_hits: list[tuple[str, float]]
    pagerank: list[tuple[str, float]]
    apoc_version: str


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def _number(value: object) -> float:
    if not isinstance(value, int | float):
        raise SmokeCheckError(f"the server returned {value!r} where a score belongs")
    return float(value)


def personalized_pagerank(
    links: tuple[tuple[str, str], ...], source: str, damping: float = 0.85, iterations: int = 200
) -> dict[str, float]:
    """Reference PageRank on the undirected graph, teleporting to `source` only, unnormalized as GDS reports it:
    score(v) = (1 - damping) * [v == source] + damping * sum over neighbours u of score(u) / degree(u)."""
    neighbours: dict[str, list[str]] = {}
    for left, right in links:
        neighbours.setdefault(left, []).append(right)
        neighbours.setdefault(right, []).append(left)
    scores = {node: 0.0 for node in neighbours}
    for _ in range(iterations):
        scores = {
            node: (1 - damping) * (node == source)
            + damping * sum(scores[u] / len(neighbours[u]) for u in neighbours[node])
            for node in neighbours
        }
    return scores


def run_smoke(driver: Driver, database: str) -> SmokeReport:
    """Load the smoke graph (idempotent) and check each part of the stack answers correctly."""
    q = load_statements("smoke.cypher")

    def run(name: str, **params: object) -> list[dict[str, object]]:
        records, _, _ = driver.execute_query(q[name], params, database_=database)
        return [record.data() for record in records]

    run("constraint")
    run("vector_index")
    run("merge_items", rows=[{"id": item.id, "name": item.name, "vector": _unit(item.vector)} for item in ITEMS])
    run("merge_links", links=[list(link) for link in LINKS])
    run("await_indexes", timeout_s=120)

    hits = [
        (str(row["id"]), _number(row["score"])) for row in run("vector_query", k=2, vector=_unit([0.9, 0.1, 0.0, 0.0]))
    ]
    if not hits or hits[0][0] != "a":
        raise SmokeCheckError(f"vector index search for a vector near 'a' returned {hits}; expected 'a' first")

    run("gds_drop", graph=GDS_GRAPH)
    projected = run("gds_project", graph=GDS_GRAPH)[0]
    try:
        ranks = [
            (str(row["id"]), _number(row["score"]))
            for row in run("gds_personalized_pagerank", graph=GDS_GRAPH, source_id=PAGERANK_SOURCE)
        ]
    finally:
        run("gds_drop", graph=GDS_GRAPH)
    expected = personalized_pagerank(LINKS, PAGERANK_SOURCE)
    off = {node: score for node, score in ranks if abs(score - expected.get(node, -1.0)) > 1e-3}
    if projected["nodeCount"] != len(ITEMS) or len(ranks) != len(ITEMS) or off:
        raise SmokeCheckError(
            f"GDS personalized PageRank from '{PAGERANK_SOURCE}' gave {ranks}; "
            f"the reference computation gives {sorted(expected.items())}"
        )

    apoc = run("apoc_version")[0]["version"]
    return SmokeReport(vector_hits=hits, pagerank=ranks, apoc_version=str(apoc))
