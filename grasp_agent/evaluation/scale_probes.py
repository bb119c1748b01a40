"""What the scale benchmark measures on one loaded SKB: plan execution and text-branch latency, JVM heap.

Plans are built from the schema (random relation paths of 1-3 hops, undirected like plans are) and anchored on
random nodes that have an edge along the first hop, then run through `grasp.plan.execute` exactly as the
graph branch calls it. Text queries are a few words drawn from random nodes' stored documents. Identifiers
reach Cypher only through `fill_identifiers`; every value is a parameter.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from neo4j import Driver, RoutingControl
from neo4j.exceptions import ClientError

from grasp_agent.cypher_queries import fill_identifiers
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.plan import Anchor, Hop, Plan, Target
from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.graph_branch.ranking import ExecutionSettings
from grasp_agent.skb.embedding_stage import NAME_MAX_TOKENS
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.text_branch.retriever import TextBranch

_HAS_STEP = "MATCH (n:{{label}} {id: $id}) RETURN n.name AS name, EXISTS { (n)-[:{{type}}]-(:{{other}}) } AS connected"
# Rare relations (a few % of nodes) can defeat random tries; then one of the first nodes along the relation.
_ALONG_STEP = "MATCH (n:{{label}})-[:{{type}}]-(:{{other}}) RETURN n.name AS name SKIP $skip LIMIT 1"
_DOCUMENTS = "MATCH (n:{{label}}) WHERE n.id IN $ids RETURN n.id AS id, n.doc AS doc"
_HEAP = "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes RETURN attributes.HeapMemoryUsage AS heap"
ANCHOR_TRIES = 20  # random nodes tried per plan for one with an edge along the first hop
FALLBACK_SPREAD = 1000  # the fallback anchor is one of the first this many nodes along the first hop
MIB = 1024 * 1024


@dataclass(frozen=True)
class Latency:
    samples: int
    p50_ms: float
    p95_ms: float

    @classmethod
    def of(cls, milliseconds: Sequence[float]) -> Latency:
        if not milliseconds:
            return cls(0, float("nan"), float("nan"))
        return cls(len(milliseconds), float(np.percentile(milliseconds, 50)), float(np.percentile(milliseconds, 95)))


@dataclass(frozen=True)
class PlanTimings:
    hops: int
    latency: Latency  # each plan's second execution: the compiled query is cached, as for a repeated plan shape
    first_run: Latency  # each plan's first execution, including Cypher planning of its generated query
    ranked: int  # plans that returned targets
    empty: int  # plans that matched no target
    refused: int  # plans the procedure stopped (row or time budget)


@dataclass(frozen=True)
class Step:
    relation: str
    source: str
    target: str  # labels in the direction the plan walks (either stored direction)


def schema_steps(schema: SkbSchema) -> dict[str, list[Step]]:
    """label -> the steps a plan can take from it, each stored pair walked both ways (hops are undirected)."""
    steps: dict[str, list[Step]] = {}
    for relation in schema.relation_types:
        for pair in relation.pairs:
            steps.setdefault(pair.source, []).append(Step(relation.type, pair.source, pair.target))
            if pair.source != pair.target:
                steps.setdefault(pair.target, []).append(Step(relation.type, pair.target, pair.source))
    return steps


def random_path(rng: np.random.Generator, steps: dict[str, list[Step]], hops: int) -> list[Step]:
    if not steps:
        raise GraspError("the schema has no relation types, so no plan with hops can be built")
    label = sorted(steps)[int(rng.integers(len(steps)))]
    path = []
    for _ in range(hops):
        step = steps[label][int(rng.integers(len(steps[label])))]
        path.append(step)
        label = step.target
    return path


def build_plan(path: Sequence[Step], anchor_name: str) -> Plan:
    """a1 -[r1]- x1 -[r2]- ... - t, every end typed (no inference needed); relevance text = the anchor's name."""
    names = ["a1", *[f"x{i}" for i in range(1, len(path))], "t"]
    hops = tuple(
        Hop(
            source=names[i],
            relation=step.relation,
            target=names[i + 1],
            source_type=step.source,
            target_type=step.target,
        )
        for i, step in enumerate(path)
    )
    return Plan(
        anchors=(Anchor(var="a1", type=path[0].source, text=anchor_name),),
        hops=hops,
        target=Target(var="t", type=path[-1].target),
        relevance_text=anchor_name,
    )


def pick_anchor(
    driver: Driver, database: str, rng: np.random.Generator, step: Step, count: int, node_id: Callable[[str, int], str]
) -> str:
    """The name of a random node of the step's source label with an edge along the step."""
    identifiers = {"label": step.source, "type": step.relation, "other": step.target}
    query = fill_identifiers(_HAS_STEP, **identifiers)
    for _ in range(ANCHOR_TRIES):
        records, _, _ = driver.execute_query(
            query, id=node_id(step.source, int(rng.integers(count))), database_=database, routing_=RoutingControl.READ
        )
        if records and records[0]["connected"]:
            return str(records[0]["name"])
    along = fill_identifiers(_ALONG_STEP, **identifiers)
    for skip in (int(rng.integers(FALLBACK_SPREAD)), 0):  # 0 when the relation has fewer edges than the skip
        records, _, _ = driver.execute_query(along, skip=skip, database_=database, routing_=RoutingControl.READ)
        if records:
            return str(records[0]["name"])
    raise GraspError(f"no {step.source} node has a {step.relation} edge to a {step.target}; cannot anchor a plan")


def time_plans(
    driver: Driver,
    database: str,
    schema: SkbSchema,
    embedder: GraspEmbedder,
    counts: dict[str, int],
    node_id: Callable[[str, int], str],
    hops: int,
    plans: int,
    seed: int,
) -> PlanTimings:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(hops,))))
    procedures = GraphProcedures(driver, database)
    names, docs, steps = embedder.with_max_tokens(NAME_MAX_TOKENS), embedder, schema_steps(schema)
    built = []
    for _ in range(plans + 1):  # one more: the first only warms the procedure's code paths up, untimed
        path = random_path(rng, steps, hops)
        plan = build_plan(path, pick_anchor(driver, database, rng, path[0], counts[path[0].source], node_id))
        check = procedures.validate(plan.to_json())
        if not check.valid:
            raise GraspError(f"benchmark plan {plan.to_json()} is invalid: {'; '.join(check.errors)}")
        built.append(
            (plan.to_json(), {"a1": names.embed_query(plan.anchors[0].text)}, docs.embed_query(plan.relevance_text))
        )
    config, limit = ExecutionSettings().config(), ExecutionSettings().limit
    outcomes = {"ranked": 0, "empty": 0, "refused": 0}
    first: list[float] = []
    second: list[float] = []
    for number, (plan_json, anchors, relevance) in enumerate(built):
        for times in (first, second):
            started = time.perf_counter()
            try:
                found = procedures.execute(plan_json, anchors, relevance, limit, config)
                outcome = "ranked" if found else "empty"
            except ClientError:  # the procedure's budget refusals; their latency counts too
                outcome = "refused"
            if number > 0:
                times.append((time.perf_counter() - started) * 1000.0)
        if number > 0:
            outcomes[outcome] += 1
    return PlanTimings(
        hops, Latency.of(second), Latency.of(first), outcomes["ranked"], outcomes["empty"], outcomes["refused"]
    )


def text_queries(driver: Driver, database: str, branch: TextBranch, count: int, seed: int) -> list[str]:
    """`count` queries of 3-8 lower-case words from random nodes' documents (labels and relation names left out)."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(99,))))
    size = min(count, len(branch.node_ids))
    ids = [branch.node_ids[int(i)] for i in rng.choice(len(branch.node_ids), size=size, replace=False)]
    documents: dict[Any, str] = {}
    by_label: dict[str, list[Any]] = {}
    for node, label in branch.labels_of(ids).items():
        by_label.setdefault(label, []).append(node)
    for label, members in sorted(by_label.items()):
        records, _, _ = driver.execute_query(
            fill_identifiers(_DOCUMENTS, label=label), ids=members, database_=database, routing_=RoutingControl.READ
        )
        documents.update({record["id"]: str(record["doc"] or "") for record in records})
    queries = []
    for node in ids:
        words = [word for word in documents.get(node, "").split() if word.isalpha() and word.islower()]
        if words:
            size = min(len(words), int(rng.integers(3, 9)))
            queries.append(" ".join(words[int(i)] for i in rng.choice(len(words), size=size, replace=False)))
    return queries


def time_text_branch(branch: TextBranch, queries: Sequence[str], k: int = 100) -> Latency:
    if not queries:
        return Latency.of([])
    branch.search(queries[0], k)  # warm-up: page-ins and first-call allocations stay out of the numbers
    times = []
    for query in queries:
        started = time.perf_counter()
        branch.search(query, k)
        times.append((time.perf_counter() - started) * 1000.0)
    return Latency.of(times)


def heap_used_mib(driver: Driver, database: str) -> float:
    """The JVM's heap in use now (java.lang:type=Memory HeapMemoryUsage.used); NaN if JMX does not say."""
    records, _, _ = driver.execute_query(_HEAP, database_=database, routing_=RoutingControl.READ)
    heap = records[0]["heap"] if records else None
    value = heap.get("value", heap) if isinstance(heap, dict) else None
    if isinstance(value, dict) and "properties" in value:
        value = value["properties"]
    used = value.get("used") if isinstance(value, dict) else None
    return float(used) / MIB if isinstance(used, int | float) else float("nan")
