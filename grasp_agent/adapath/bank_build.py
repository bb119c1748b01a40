"""Path-Bank construction for one training query, in Neo4j GDS: corridor by bidirectional PPR, then Yen.

Per query (text, topic node ids, gold answer ids):
1. personalized PageRank on the whole SKB (projected once per builder, every relation both ways) from the
   topic nodes, and again from the answer nodes;
2. the corridor: the `corridor_size` nodes with the highest product of both scores, plus topic and answers
   (corridor.py), chosen among each walk's `ppr_keep` best nodes (20 x the corridor by default: on 12 HPO
   training queries that corridor shares 99.0-100% of its nodes with the one chosen among all scores, and
   streaming all ~35,000 scores per walk took most of a query's time);
3. the corridor projected on its own with query-conditioned edge costs, cost(u, v) = -log(eps + (r(u) +
   r(v)) / 2), r(v) = max(0, cos(q, doc(v))) from the stored document embeddings (cypher/adapath.cypher);
4. Yen's k shortest loopless paths from the topic to each answer inside the corridor;
5. each path of at most 3 hops abstracted to its typed meta-path (metapath.py), with the stored direction of
   every relation read back from the database.

Nothing here re-implements PPR or Yen; Python only orders the calls and reads the results. Projections get
unique names and are dropped on the way out, also after an error.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from neo4j import Driver

from grasp_agent.adapath.corridor import corridor_nodes
from grasp_agent.adapath.metapath import MAX_HOPS, MetaPath, PathHop, meta_path_of
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError
from grasp_agent.skb.schema import SkbSchema

NodeId = str | int
MAX_STEP_VARIANTS = 4  # relation choices kept per path when parallel relations join the same two nodes


@dataclass(frozen=True)
class BankConfig:
    """The constants the AdaPath paper leaves open, with the values we chose (see README)."""

    corridor_size: int = 200  # nodes kept by ppr_topic * ppr_answer, besides topic and answers
    ppr_keep: int = 4000  # each walk's best nodes the corridor is chosen among (0: all)
    paths_per_answer: int = 3  # Yen's k
    max_answers: int = 5  # gold answers searched per query (answer sets reach 20)
    damping: float = 0.85
    ppr_iterations: int = 20
    eps: float = 1e-3  # keeps -log finite for irrelevant ends: cost <= -log(eps) ~ 6.9
    max_hops: int = MAX_HOPS

    def __post_init__(self) -> None:
        problems = [
            name
            for name, value in (
                ("corridor_size", self.corridor_size),
                ("paths_per_answer", self.paths_per_answer),
                ("max_answers", self.max_answers),
                ("ppr_iterations", self.ppr_iterations),
                ("max_hops", self.max_hops),
            )
            if value < 1
        ]
        if self.ppr_keep < 0:
            problems.append("ppr_keep")
        if problems or not 0 < self.damping < 1 or not 0 < self.eps < 1 or self.max_hops > MAX_HOPS:
            raise GraspError(
                f"invalid AdaPath bank config {self}: counts must be >= 1 ({problems or 'ok'}), "
                f"damping and eps in (0, 1), max_hops at most {MAX_HOPS}"
            )


@dataclass(frozen=True)
class BankQuery:
    text: str
    topic_ids: tuple[NodeId, ...]
    answer_ids: tuple[NodeId, ...]


@dataclass(frozen=True)
class FoundPath:
    hops: tuple[PathHop, ...]
    cost: float
    meta_path: MetaPath

    @property
    def node_ids(self) -> tuple[NodeId, ...]:
        return (self.hops[0].source_id, *(hop.target_id for hop in self.hops))


@dataclass
class QueryPaths:
    query: BankQuery
    paths: list[FoundPath] = field(default_factory=list)
    corridor_nodes: int = 0
    corridor_relationships: int = 0
    missing_ids: tuple[NodeId, ...] = ()  # topic or answer ids not in the SKB
    query_vector: list[float] | None = None  # the query's embedding, when the search got as far as needing it

    @property
    def meta_paths(self) -> list[MetaPath]:
        """Distinct meta-paths, cheapest path first."""
        ordered = sorted(self.paths, key=lambda path: path.cost)
        return list(dict.fromkeys(path.meta_path for path in ordered))


@dataclass(frozen=True)
class QueryEnds:
    topics: list[int]  # GDS node ids
    answers: list[int]
    missing: tuple[NodeId, ...]  # topic or answer ids not in the SKB

    @property
    def searchable(self) -> bool:
        return bool(self.topics and self.answers)


class PathBankBuilder:
    """Finds a training query's topic-to-answer paths; one SKB projection serves every query of a build."""

    def __init__(
        self,
        driver: Driver,
        database: str,
        schema: SkbSchema,
        embedder: GraspEmbedder,
        config: BankConfig = BankConfig(),
    ) -> None:
        self._cypher = AdaPathCypher(driver, database)
        self._embedder = embedder
        self._config = config
        self._labels = [node_type.label for node_type in schema.node_types]
        self._types = [relation.type for relation in schema.relation_types]
        self._graph = f"adapath_skb_{uuid.uuid4().hex[:12]}"
        self._projected = False

    def __enter__(self) -> Self:
        relationships = {name: {"orientation": "UNDIRECTED"} for name in self._types}
        self.run("project_skb", graph=self._graph, labels=self._labels, relationships=relationships)
        self._projected = True
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._projected:
            self.run("drop_graph", graph=self._graph)
            self._projected = False

    @property
    def config(self) -> BankConfig:
        return self._config

    @property
    def relation_types(self) -> list[str]:
        return list(self._types)

    def run(self, name: str, **parameters: Any) -> list[dict[str, Any]]:
        """Statement `name` of cypher/adapath.cypher (the cost profile runs its own projections with it)."""
        return self._cypher.run(name, **parameters)

    def _gds_ids(self, ids: Sequence[NodeId]) -> dict[NodeId, int]:
        found: dict[NodeId, int] = {}
        for label in self._labels:
            rows = self._cypher.run("node_ids", {"label": label}, ids=list(ids))
            found.update((row["id"], row["nodeId"]) for row in rows)
        return found

    def walk(self, sources: list[int]) -> dict[int, float]:
        """Personalized PageRank from `sources` (GDS node ids): the `ppr_keep` best nodes and their scores."""
        rows = self.run(
            "personalized_pagerank",
            graph=self._graph,
            sources=sources,
            damping=self._config.damping,
            iterations=self._config.ppr_iterations,
            keep=self._config.ppr_keep or 2**31 - 1,
        )
        return {row["nodeId"]: row["score"] for row in rows}

    def query_vector(self, text: str) -> list[float]:
        return self._embedder.embed_query(text)

    def ends(self, query: BankQuery) -> QueryEnds:
        """GDS ids of the query's topics and (at most `max_answers`) answers, and the ids absent from the SKB."""
        if not self._projected:
            raise GraspError("PathBankBuilder is used outside its `with` block (the SKB projection is missing)")
        wanted = list(dict.fromkeys((*query.topic_ids, *query.answer_ids)))
        gds_ids = self._gds_ids(wanted)
        topics = [gds_ids[node_id] for node_id in query.topic_ids if node_id in gds_ids]
        answers = [
            gds_ids[node_id] for node_id in query.answer_ids if node_id in gds_ids and node_id not in query.topic_ids
        ][: self._config.max_answers]
        return QueryEnds(topics, answers, tuple(node_id for node_id in wanted if node_id not in gds_ids))

    def paths_for(self, query: BankQuery) -> QueryPaths:
        found = QueryPaths(query)
        ends = self.ends(query)
        found.missing_ids = ends.missing
        if not ends.searchable:
            return found
        topics, answers = ends.topics, ends.answers
        corridor = corridor_nodes(
            self.walk(topics), self.walk(answers), self._config.corridor_size, [*topics, *answers]
        )
        vector = found.query_vector = self._embedder.embed_query(query.text)
        graph = f"adapath_corridor_{uuid.uuid4().hex[:12]}"
        try:
            shape = self.run(
                "project_corridor",
                graph=graph,
                corridor=corridor,
                types=self._types,
                queryVector=vector,
                eps=self._config.eps,
            )
            found.corridor_nodes = shape[0]["nodeCount"] if shape else 0
            found.corridor_relationships = shape[0]["relationshipCount"] if shape else 0
            # an end with no relationship inside the corridor is not in the projection: no path from or to it
            projected = set(shape[0]["nodeIds"]) if shape else set()
            for topic, answer in itertools.product(topics, answers):
                if topic in projected and answer in projected:
                    found.paths.extend(self._yen_paths(graph, topic, answer))
        finally:
            self.run("drop_graph", graph=graph)
        return found

    def _yen_paths(self, graph: str, source: int, target: int) -> list[FoundPath]:
        rows = self.run("yens", graph=graph, source=source, target=target, k=self._config.paths_per_answer)
        paths: list[FoundPath] = []
        seen: set[tuple[int, ...]] = set()
        for row in rows:
            node_ids = tuple(row["nodeIds"])
            if len(node_ids) - 1 > self._config.max_hops or node_ids in seen:
                continue  # Yen repeats a node sequence through parallel relationships
            seen.add(node_ids)
            steps = self.run("path_steps", nodeIds=list(node_ids), types=self._types, labels=self._labels)
            paths.extend(
                FoundPath(hops, float(row["totalCost"]), meta_path_of(hops))
                for hops in _hop_variants(steps, len(node_ids) - 1)
            )
        return paths


def _hop_variants(steps: list[dict[str, Any]], hop_count: int) -> list[tuple[PathHop, ...]]:
    """Every way to choose one stored relationship per hop (capped), as PathHop tuples."""
    per_hop: list[list[PathHop]] = [[] for _ in range(hop_count)]
    for step in steps:
        per_hop[step["i"]].append(
            PathHop(
                step["sourceId"],
                step["targetId"],
                step["sourceLabel"],
                step["targetLabel"],
                step["type"],
                bool(step["outgoing"]),
            )
        )
    if any(not choices for choices in per_hop):
        return []  # a relationship vanished between the projection and now
    return list(itertools.islice(itertools.product(*per_hop), MAX_STEP_VARIANTS))
