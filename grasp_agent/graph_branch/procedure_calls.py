"""Typed calls of the grasp procedures the graph branch uses (grasp.link, grasp.plan.*).

The Cypher lives in cypher/graph_branch.cypher; every value, the plan JSON included, is a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from neo4j import Driver, RoutingControl

from grasp_agent.cypher_queries import fill_identifiers, load_statements

NodeId = str | int


@dataclass(frozen=True)
class NodeLink:
    """One candidate node for a mention: cosine of the mention and the node's name (or doc) embedding."""

    node_id: NodeId
    name: str
    label: str
    score: float
    degree: int


@dataclass(frozen=True)
class PlanCheck:
    valid: bool
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompiledPlan:
    """The one Cypher query a plan runs and its parameters, ready for Neo4j Browser."""

    query: str
    params: dict[str, Any]


@dataclass(frozen=True)
class RankedNode:
    node_id: NodeId
    name: str
    anchor_score: float
    dense_score: float
    score: float
    # per anchor, its best path: node {var, id, name, label}, rel {type, direction}, node, ...
    witness: tuple[dict[str, Any], ...] = field(default=())
    exact: bool = True  # False: no node matched the whole plan, this one matches part of it (soft constraints)
    lexical_score: float = 0.0  # what the relevance text's words added in Python (`ranking.lexically_rescored`)


# Index candidates searched per span when many spans are scanned for typos and paraphrases (the name dictionary
# finds exact names): the procedure's default, max(2k + 10, 100), made the graph branch 1.8x slower.
SCAN_CANDIDATES = 12


class GraphProcedures:
    """The grasp procedures of one database, called with read transactions."""

    def __init__(self, driver: Driver, database: str) -> None:
        self._driver = driver
        self._database = database
        self._statements = load_statements("graph_branch.cypher")

    def _read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        records, _, _ = self._driver.execute_query(
            self._statements[name], parameters_=params, database_=self._database, routing_=RoutingControl.READ
        )
        return [record.data() for record in records]

    def link_many(
        self,
        vectors: Mapping[str, Sequence[float]],
        labels: Sequence[str],
        mode: Literal["name", "doc"] = "name",
        k: int = 3,
        tau: float = 0.0,
        candidates: int = -1,
    ) -> dict[str, list[NodeLink]]:
        """Per key, the top-k candidates over all `labels` (each label's own top-k), best first. `candidates`: how
        many the vector index searches (negative: the procedure's default, enough to return exact names; a scan of
        many spans may ask for fewer, SCAN_CANDIDATES)."""
        if not vectors or not labels:
            return {key: [] for key in vectors}
        rows = [{"key": key, "vector": [float(x) for x in vector]} for key, vector in vectors.items()]
        found: dict[str, list[NodeLink]] = {key: [] for key in vectors}
        for row in self._read(
            "link_many", rows=rows, labels=list(labels), mode=mode, k=k, tau=tau, candidates=candidates
        ):
            found[row["key"]].append(
                NodeLink(row["nodeId"], row["name"] or "", row["label"], float(row["score"]), int(row["degree"]))
            )
        return found

    def names_and_synonyms(self, label: str, fields: Sequence[str]) -> list[tuple[NodeId, str, list[str]]]:
        """(id, name, synonyms) of every node of `label`; a synonym property may hold a string or a list."""
        query = fill_identifiers(self._statements["names_and_synonyms"], label=label)
        records, _, _ = self._driver.execute_query(
            query, parameters_={"fields": list(fields)}, database_=self._database, routing_=RoutingControl.READ
        )
        found = []
        for record in records:
            synonyms: list[str] = []
            for value in record["synonyms"]:
                values = value if isinstance(value, list) else [value]
                synonyms.extend(v for v in values if isinstance(v, str) and v.strip())
            found.append((record["id"], str(record["name"] or ""), synonyms))
        return found

    def bank_loops(self, skb: str) -> list[dict[str, Any]]:
        """Per route from a type back to itself, how many of the Path-Bank's training questions took it first."""
        return self._read("bank_loops", skb=skb)

    def nodes_by_id(self, label: str, ids: Sequence[NodeId]) -> dict[NodeId, tuple[str, int]]:
        """(name, degree) of each of `ids` that is a node of `label`."""
        if not ids:
            return {}
        query = fill_identifiers(self._statements["nodes_by_id"], label=label)
        records, _, _ = self._driver.execute_query(
            query, parameters_={"ids": list(ids)}, database_=self._database, routing_=RoutingControl.READ
        )
        return {record["id"]: (str(record["name"] or ""), int(record["degree"])) for record in records}

    def validate(self, plan_json: str) -> PlanCheck:
        row = self._read("validate_plan", plan=plan_json)[0]
        return PlanCheck(bool(row["valid"]), tuple(row["errors"]), tuple(row["warnings"]))

    def compile(self, plan_json: str, bindings: Mapping[str, Sequence[Mapping[str, Any]]]) -> CompiledPlan:
        row = self._read("compile_plan", plan=plan_json, bindings={k: list(v) for k, v in bindings.items()})[0]
        return CompiledPlan(row["query"], dict(row["params"]))

    def execute(
        self,
        plan_json: str,
        anchor_vectors: Mapping[str, Sequence[float] | Sequence[Mapping[str, Any]]],
        relevance_vector: Sequence[float] | None,
        limit: int,
        config: Mapping[str, Any] | None = None,
    ) -> list[RankedNode]:
        """`anchor_vectors`: per anchor variable its embedding, or its candidates as given ({id, score} each)."""
        rows = self._read(
            "execute_plan",
            plan=plan_json,
            anchorVectors={var: _anchor_input(given) for var, given in anchor_vectors.items()},
            relevanceVector=None if relevance_vector is None else [float(x) for x in relevance_vector],
            limit=limit,
            config=dict(config or {}),
        )
        return [
            RankedNode(
                r["nodeId"],
                r["name"] or "",
                float(r["anchorScore"]),
                float(r["denseScore"]),
                float(r["score"]),
                tuple(r["witness"] or ()),
                bool(r.get("exact", True)),
            )
            for r in rows
        ]


def _anchor_input(given: Sequence[float] | Sequence[Mapping[str, Any]]) -> list[Any]:
    """A vector as floats, or bindings as {id, score} with a float score."""
    return [
        {"id": item["id"], "score": float(item["score"])} if isinstance(item, Mapping) else float(item)
        for item in given
    ]
