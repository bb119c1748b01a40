"""AdaPath online as a LangGraph `StateGraph`:

    START → analyse → meta_paths → search → answer → END

- analyse: topic nodes (given, or the entity table's best anchors), hop count and answer type;
- meta_paths: from the Path-Bank (`bank`), read off the GRASP planner's plan (`planner`: AdaPath without its
  bank), or none (`none`: unguided);
- search: `adapath.bfs` (embedding scorer) or depth by depth with the LLM choosing the frontier;
- answer: the LLM names the answer among the paths' ends (the best path's end without an LLM).

Nothing raises to the caller: a stage that breaks (database, embedder, LLM, a missing bank) is recorded in
`failures`, an expected shortfall (no linkable topic, no meta-path) in `notes`, and the result says why it is
empty or unguided.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from neo4j import Driver
from neo4j.exceptions import DriverError, Neo4jError  # DriverError: the server is gone (ServiceUnavailable)

from grasp_agent.adapath.answer import PathAnswer, answer_from_paths
from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.adapath.path_search import PathSearch, PathSearchOptions, choose_meta_paths, search_paths
from grasp_agent.adapath.plan_meta_paths import plan_meta_paths
from grasp_agent.adapath.question import HopGuesser, LLMHopGuesser, NodeId, QuestionAnalysis, Topic, analyse_question
from grasp_agent.adapath.result import PathResult, path_result
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError

MetaPathMode = Literal["bank", "planner", "none"]
STAGES = ("analyse", "meta_paths", "search", "answer")


@dataclass(frozen=True)
class PathParts:
    driver: Driver
    database: str
    embedder: GraspEmbedder
    branch: GraphBranch  # extraction and linking (and the planner, for meta_paths="planner")
    llm: GraspLLM | None  # frontier scorer and answerer; None: embedding scorer, best-path answer
    hop_guesser: HopGuesser | None
    options: PathSearchOptions
    min_link_score: float


def assemble_path_parts(
    driver: Driver, settings: Settings, embedder: GraspEmbedder, llm: GraspLLM | None, branch: GraphBranch | None = None
) -> PathParts:
    """The parts from settings; `branch` reuses a search's graph branch (else one is built: LLM extraction and
    planning when `llm` is given)."""
    return PathParts(
        driver,
        settings.neo4j_database,
        embedder,
        branch or GraphBranch.build(driver, settings, embedder, llm),
        llm,
        LLMHopGuesser(llm) if llm is not None else None,
        PathSearchOptions.from_settings(settings),
        settings.adapath_min_link_score,
    )


class PathState(TypedDict, total=False):
    question: str
    topic_ids: list[NodeId] | None
    mode: MetaPathMode
    exclude_bank_queries: list[str]  # bank queries hidden from retrieval (leave-template-out evaluation)
    options: PathSearchOptions
    query_vector: list[float] | None  # None when embedding the question failed
    entity_table: EntityTable | None
    analysis: QuestionAnalysis
    search: PathSearch | None
    answer: PathAnswer
    notes: list[str]
    failures: list[str]  # a stage that broke (database, LLM, bank): the result is degraded, not just empty
    timings_ms: dict[str, float]


class PathNode(Protocol):  # LangGraph's node protocol names the parameter `state`
    def __call__(self, state: PathState) -> dict[str, Any]: ...


def _timed(name: str, work: PathNode) -> PathNode:
    def node(state: PathState) -> dict[str, Any]:
        start = time.perf_counter()
        update = work(state)
        update["timings_ms"] = {**state.get("timings_ms", {}), name: (time.perf_counter() - start) * 1000.0}
        return update

    return node


def build_path_graph(parts: PathParts) -> CompiledStateGraph[Any, Any, Any, Any]:
    def analyse(state: PathState) -> dict[str, Any]:
        notes, failures = list(state.get("notes", [])), list(state.get("failures", []))
        table = None
        try:  # also with given topics: the table carries the answer type (and the planner's anchors)
            table = parts.branch.link(parts.branch.extract(state["question"], notes))
        except (GraspError, Neo4jError, DriverError, LLMError) as error:
            failures.append(f"entity linking failed: {error}")
        given, known = state.get("topic_ids"), None
        if given:
            try:
                known = _known_topics(parts, given)
            except (Neo4jError, DriverError) as error:
                failures.append(f"reading the topic nodes failed: {error}")
        analysis = analyse_question(
            state["question"],
            table,
            parts.branch.context.labels,
            topic_ids=given,
            hop_guesser=parts.hop_guesser,
            min_link_score=parts.min_link_score,
            given_topics=known,
        )
        vector = None
        try:
            vector = parts.embedder.embed_query(state["question"])
        except GraspError as error:
            failures.append(f"embedding the question failed: {error}")
        return {
            "analysis": analysis,
            "entity_table": table,
            "notes": notes,
            "failures": failures,
            "query_vector": vector,
        }

    def meta_paths(state: PathState) -> dict[str, Any]:
        analysis, notes, failures = state["analysis"], list(state.get("notes", [])), list(state.get("failures", []))
        options = state.get("options", parts.options)
        mode = state.get("mode", "bank")
        given, vector = None, state.get("query_vector")
        if vector is None:
            return {"search": None, "notes": notes, "failures": failures}  # the analysis said why
        if mode == "planner":
            given = _planner_meta_paths(parts, state, notes, failures)
        try:
            search = choose_meta_paths(
                parts.driver,
                parts.database,
                vector,
                options,
                hops=analysis.hops,
                answer_label=analysis.answer_label,
                start_labels=[t.label for t in analysis.topics if t.label],
                meta_paths=given,
                use_bank=mode == "bank",
                exclude_bank_queries=state.get("exclude_bank_queries", []),
            )
        except (GraspError, Neo4jError, DriverError) as error:
            failures.append(f"Path-Bank retrieval failed ({error}); unguided search")
            search = PathSearch(scorer=options.scorer)
        return {"search": search, "notes": notes, "failures": failures}

    def search(state: PathState) -> dict[str, Any]:
        analysis, notes, failures = state["analysis"], list(state.get("notes", [])), list(state.get("failures", []))
        found, vector = state.get("search"), state.get("query_vector")
        if found is None or vector is None:
            return {"search": found, "notes": notes}
        if not analysis.topics:
            notes.append("no topic node: nothing to search from")
            return {"search": found, "notes": notes}
        try:
            found = search_paths(
                parts.driver,
                parts.database,
                found,
                state["question"],
                vector,
                analysis.topic_ids,
                state.get("options", parts.options),
                parts.llm,
            )
        except (GraspError, Neo4jError, DriverError) as error:
            failures.append(f"path search failed: {error}")
        return {"search": found, "notes": notes, "failures": failures}

    def answer(state: PathState) -> dict[str, Any]:
        found = state.get("search")
        return {"answer": answer_from_paths(state["question"], found.paths if found else [], parts.llm)}

    builder = StateGraph(PathState)
    previous = START
    for name, work in zip(STAGES, (analyse, meta_paths, search, answer), strict=True):
        builder.add_node(name, _timed(name, work))
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile(name="adapath")


def _known_topics(parts: PathParts, ids: Sequence[NodeId]) -> list[Topic]:
    """The given topic ids with their names and labels (so meta-paths can be matched to the topic's type)."""
    return [
        Topic(node_id, name, label, 1.0)
        for node_id, name, label in AdaPathCypher(parts.driver, parts.database).named_nodes(
            parts.branch.context.labels, ids
        )
    ]


def _planner_meta_paths(parts: PathParts, state: PathState, notes: list[str], failures: list[str]) -> list[MetaPath]:
    table = state.get("entity_table")
    if table is None:
        notes.append("no entity table for the planner: unguided search")
        return []
    try:
        outcome = parts.branch.plan(state["question"], table)
    except (GraspError, Neo4jError, DriverError, LLMError) as error:
        failures.append(f"the planner failed ({error}): unguided search")
        return []
    if outcome.plan is None:
        notes.append(f"the planner wrote no valid plan ({outcome.reason}): unguided search")
        return []
    found = plan_meta_paths(outcome.plan, parts.branch.context.schema)
    if not found:
        notes.append("the plan's hops give no meta-path of 1-3 hops: unguided search")
    return found


def run_path_graph(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    question: str,
    *,
    topic_ids: Sequence[NodeId] | None = None,
    mode: MetaPathMode = "bank",
    options: PathSearchOptions | None = None,
    exclude_bank_queries: Sequence[str] = (),
) -> PathResult:
    state: PathState = {
        "question": question,
        "topic_ids": list(topic_ids) if topic_ids else None,
        "mode": mode,
        "exclude_bank_queries": list(exclude_bank_queries),
        "notes": [],
        "failures": [],
        "timings_ms": {},
    }
    if options is not None:
        state["options"] = options
    final = graph.invoke(state)
    return path_result(
        question,
        final["analysis"],
        final.get("search"),
        final["answer"],
        final.get("notes", []),
        final.get("failures", []),
        final.get("timings_ms", {}),
    )
