"""What the corridor buys (the AdaPath paper's profiling table): per training query, Yen's k shortest paths
inside the PPR corridor against Yen on the whole SKB with the same query-conditioned costs.

Per query and side: wall time (the corridor side includes both walks; both include projecting the weighted
graph and every topic-answer Yen run) and memory = the weighted projection's size (`gds.graph.list`) plus GDS's
own estimate for one Yen run on it (`gds.shortestPath.yens.stream.estimate`), reported apart: the Yen estimate
is the search's working memory (the paper's per-query figure), while GDS sizes a Cypher-aggregation projection
partly by the database's id range, so even a 200-node corridor reports tens of MiB. The raw side projects
every relationship of the SKB with its cost, which is what makes it expensive; keep N small on big graphs.
"""

from __future__ import annotations

import itertools
import statistics
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from grasp_agent.adapath.bank_build import BankQuery, PathBankBuilder
from grasp_agent.adapath.corridor import corridor_nodes

MIB = 2**20


@dataclass(frozen=True)
class SideCost:
    seconds: float
    graph_bytes: int
    yen_bytes: int
    nodes: int
    relationships: int
    paths: int


@dataclass(frozen=True)
class QueryCost:
    query_id: str
    corridor: SideCost
    raw: SideCost


@dataclass
class CostProfile:
    queries: list[QueryCost] = field(default_factory=list)
    skipped: int = 0  # queries whose topic or answers are not in the SKB

    def summary(self) -> dict[str, dict[str, float]]:
        """Median and p95 of time (s), Yen's working memory (KiB) and the projection's size (MiB) per side."""
        out: dict[str, dict[str, float]] = {}
        for side in ("corridor", "raw"):
            costs = [getattr(query, side) for query in self.queries]
            seconds = sorted(cost.seconds for cost in costs)
            yen = sorted(cost.yen_bytes / 1024 for cost in costs)
            graph = sorted(cost.graph_bytes / MIB for cost in costs)
            out[side] = {
                "seconds_median": _median(seconds),
                "seconds_p95": _p95(seconds),
                "yen_kib_median": _median(yen),
                "yen_kib_p95": _p95(yen),
                "graph_mib_median": _median(graph),
                "graph_mib_p95": _p95(graph),
                "relationships_median": _median(sorted(float(c.relationships) for c in costs)),
                "paths_total": float(sum(cost.paths for cost in costs)),
            }
        return out


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def _p95(values: Sequence[float]) -> float:
    return values[min(len(values) - 1, int(0.95 * len(values)))] if values else 0.0


class CostProfiler:
    """Runs both sides for each query on one builder (its SKB projection serves the walks)."""

    def __init__(self, builder: PathBankBuilder) -> None:
        self._builder = builder

    def profile(self, queries: Sequence[tuple[str, BankQuery]], *, progress: bool = True) -> CostProfile:
        result = CostProfile()
        for query_id, query in tqdm(queries, desc="cost profile", unit="query", disable=not progress):
            ends = self._builder.ends(query)
            if not ends.searchable:
                result.skipped += 1
                continue
            topics, answers = ends.topics, ends.answers
            vector = self._builder.query_vector(query.text)
            started = time.perf_counter()
            corridor = corridor_nodes(
                self._builder.walk(topics),
                self._builder.walk(answers),
                self._builder.config.corridor_size,
                [*topics, *answers],
            )
            inside = self._side("project_corridor", started, topics, answers, vector, corridor=corridor)
            raw = self._side("project_weighted_skb", time.perf_counter(), topics, answers, vector)
            result.queries.append(QueryCost(query_id, inside, raw))
        return result

    def _side(
        self,
        statement: str,
        started: float,
        topics: list[int],
        answers: list[int],
        vector: list[float],
        **parameters: object,
    ) -> SideCost:
        builder = self._builder
        graph = f"adapath_cost_{uuid.uuid4().hex[:12]}"
        try:
            shape = builder.run(
                statement,
                graph=graph,
                types=builder.relation_types,
                queryVector=vector,
                eps=builder.config.eps,
                **parameters,
            )
            nodes = int(shape[0]["nodeCount"]) if shape else 0
            relationships = int(shape[0]["relationshipCount"]) if shape else 0
            paths, yen_bytes = 0, 0
            if relationships:
                # the corridor's projection says which nodes it holds (Yen needs both ends in it); the whole
                # SKB's holds every end
                projected = set(shape[0]["nodeIds"]) if "nodeIds" in shape[0] else None
                pairs = [
                    (topic, answer)
                    for topic, answer in itertools.product(topics, answers)
                    if projected is None or {topic, answer} <= projected
                ]
                for topic, answer in pairs:
                    paths += len(
                        builder.run("yens", graph=graph, source=topic, target=answer, k=builder.config.paths_per_answer)
                    )
                if pairs:
                    estimate = builder.run(
                        "yens_estimate",
                        graph=graph,
                        source=pairs[0][0],
                        target=pairs[0][1],
                        k=builder.config.paths_per_answer,
                    )
                    yen_bytes = int(estimate[0]["bytesMax"]) if estimate else 0
            seconds = time.perf_counter() - started  # the size lookup below is bookkeeping, not search
            size = builder.run("graph_size", graph=graph) if relationships else []
            return SideCost(seconds, int(size[0]["sizeInBytes"]) if size else 0, yen_bytes, nodes, relationships, paths)
        finally:
            builder.run("drop_graph", graph=graph)
